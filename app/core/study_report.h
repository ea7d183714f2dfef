// The study report (docs/study.md): one self-contained HTML page, <root>/study/report.html, with
// the status of every recording (state, time, backend, host, message), the timings, the pipeline,
// each method's group summary where the pipeline has one (EMD: IMFs per channel over the
// recordings; ICA: components and convergence per recording) and its figures as inline SVG
// images (data: URIs), so the page opens anywhere without other files.
#pragma once

#include <string>

#include "app/core/study_manifest.h"

namespace modescope {

// The page's HTML, from the manifest, the status files and each done task's run summary.
std::string studyReportHtml(const StudyManifest& m);
// Writes it atomically to <root>/study/report.html and returns the path.
std::string writeStudyReport(const StudyManifest& m);

// RFC 4648 base64 (for the data: URIs).
std::string base64Encode(const std::string& bytes);
// &, <, >, " and ' as entities.
std::string htmlEscape(const std::string& text);

}  // namespace modescope
