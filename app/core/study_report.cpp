#include "app/core/study_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app/core/study_status.h"
#include "engine/core/json_value.h"
#include "engine/core/provenance.h"
#include "engine/io/atomic_file.h"
#include "engine/io/hdf5_entropy.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

std::string fmt(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

const char* stateColour(TaskState s) {
  switch (s) {
    case TaskState::Done:
      return "#2e7d32";
    case TaskState::Failed:
      return "#c62828";
    case TaskState::Interrupted:
      return "#ef6c00";
    default:
      return "#757575";
  }
}

struct Bar {
  std::string label;
  double value = 0;
  std::string colour = "#1565c0";
};

// A horizontal bar chart as a standalone SVG document.
std::string barChartSvg(const std::string& title, const std::string& unit,
                        const std::vector<Bar>& bars) {
  const int rowH = 18, left = 190, width = 620, top = 30;
  const int height = top + rowH * static_cast<int>(std::max<std::size_t>(bars.size(), 1)) + 30;
  double maxV = 0;
  for (const Bar& b : bars) maxV = std::max(maxV, b.value);
  if (maxV <= 0) maxV = 1;
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
    << "' font-family='sans-serif' font-size='11'>";
  s << "<rect width='100%' height='100%' fill='white'/>";
  s << "<text x='4' y='16' font-size='13' font-weight='bold'>" << htmlEscape(title) << "</text>";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const int y = top + static_cast<int>(i) * rowH;
    const double w = (width - left - 70) * bars[i].value / maxV;
    s << "<text x='" << left - 6 << "' y='" << y + 12 << "' text-anchor='end'>"
      << htmlEscape(bars[i].label.substr(0, 30)) << "</text>";
    s << "<rect x='" << left << "' y='" << y + 2 << "' width='" << fmt(std::max(w, 1.0), 1)
      << "' height='" << rowH - 5 << "' fill='" << bars[i].colour << "'/>";
    s << "<text x='" << left + static_cast<int>(w) + 4 << "' y='" << y + 12 << "'>"
      << fmt(bars[i].value, bars[i].value < 10 ? 2 : 1) << " " << htmlEscape(unit) << "</text>";
  }
  s << "</svg>";
  return s.str();
}

std::string figure(const std::string& svg, const std::string& alt) {
  return "<figure><img alt='" + htmlEscape(alt) + "' src='data:image/svg+xml;base64," +
         base64Encode(svg) + "'/><figcaption>" + htmlEscape(alt) + "</figcaption></figure>\n";
}

const JsonValue* stepOf(const JsonValue& run, int step) {
  const JsonValue* steps = run.find("steps");
  if (!steps || steps->kind() != JsonValue::Kind::Array) return nullptr;
  if (step < 1 || static_cast<std::size_t>(step) > steps->asArray().size()) return nullptr;
  return &steps->asArray()[static_cast<std::size_t>(step - 1)];
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string base64Encode(const std::string& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += k[(v >> 6) & 63];
    out += k[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += k[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string htmlEscape(const std::string& text) {
  std::string s;
  for (char c : text) {
    switch (c) {
      case '&':
        s += "&amp;";
        break;
      case '<':
        s += "&lt;";
        break;
      case '>':
        s += "&gt;";
        break;
      case '"':
        s += "&quot;";
        break;
      case '\'':
        s += "&#39;";
        break;
      default:
        s += c;
    }
  }
  return s;
}

// A C x C matrix as a heat map (white = the smallest finite entry, dark blue = the largest; NaN
// grey), channel names along both axes.
std::string matrixSvg(const std::string& title, const std::vector<std::string>& names,
                      const std::vector<double>& values) {
  const int n = static_cast<int>(names.size());
  const int cell = std::max(6, std::min(24, 520 / std::max(n, 1))), left = 70, top = 40;
  double lo = 0, hi = 0;
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  const double span = hi > lo ? hi - lo : 1.0;
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << std::max(left + n * cell + 20, 480)
    << "' height='" << top + n * cell + 20
    << "' font-family='sans-serif' font-size='10'><text x='4' y='16'>" << htmlEscape(title) << " ("
    << fmt(lo, 3) << " .. " << fmt(hi, 3) << ")</text>";
  for (int u = 0; u < n; ++u) {
    s << "<text x='4' y='" << top + u * cell + cell - 2 << "'>" << htmlEscape(names[u])
      << "</text>";
    for (int v = 0; v < n; ++v) {
      const double x = values[static_cast<std::size_t>(u * n + v)];
      std::string colour = "#bbbbbb";
      if (std::isfinite(x)) {
        const int shade = static_cast<int>(255 - 200 * (x - lo) / span);
        char buf[16];
        std::snprintf(buf, sizeof buf, "#%02x%02xff", shade, shade);
        colour = buf;
      }
      s << "<rect x='" << left + v * cell << "' y='" << top + u * cell << "' width='" << cell
        << "' height='" << cell << "' fill='" << colour << "'/>";
    }
  }
  s << "</svg>";
  return s.str();
}

// The group mean of an entropy step's matrices over the done recordings (entropyGroupMeans:
// NaN-skipping per entry), read from their output files; "" when none can be read or the
// recordings' channels differ.
std::string entropyGroupSummary(const StudyManifest& m, const std::vector<const StudyTask*>& done,
                                std::size_t stepIndex, int step) {
  std::vector<EntropyFileRecording> runs;
  std::string measure;
  for (const StudyTask* t : done) {
    try {
      EntropyFile f = readEntropyFile(m.root + "/" + t->outputs[stepIndex].file);
      if (f.recordings.empty()) continue;
      const auto names = [](const EntropyFileRecording& r) {
        std::vector<std::string> out;
        for (const EntropyFileChannel& c : r.channels) out.push_back(c.name);
        return out;
      };
      if (!runs.empty() && names(f.recordings.front()) != names(runs.front())) {
        return "<p>Step " + std::to_string(step) +
               " (xapen): the recordings have different channels; no group mean.</p>\n";
      }
      f.recordings.front().group = "study";  // one group: every recording
      measure = entropyMeasureName(f.recordings.front().result.params.measure);
      runs.push_back(std::move(f.recordings.front()));
    } catch (const Error&) {
    }
  }
  if (runs.empty()) return {};
  const std::vector<EntropyGroupMean> groups = entropyGroupMeans(runs);
  if (groups.empty()) return {};
  const EntropyGroupMean& g = groups.front();
  std::ostringstream h;
  h << "<h3>Step " << step << " (xapen): group mean of the " << measure << " matrices over "
    << runs.size() << " recordings</h3>\n";
  h << figure(matrixSvg("Group mean, row = template channel", g.channelNames, g.mean),
              "Step " + std::to_string(step) + ": group mean matrix");
  // Per recording: the mean over the off-diagonal entries (cross-entropy between channels).
  std::vector<Bar> bars;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const EntropyMatrixResult& r = runs[i].result;
    const std::size_t c = r.channelCount();
    double sum = 0;
    int count = 0;
    for (std::size_t u = 0; u < c; ++u)
      for (std::size_t v = 0; v < c; ++v)
        if (u != v && std::isfinite(r.averageAt(u, v))) {
          sum += r.averageAt(u, v);
          ++count;
        }
    bars.push_back({done[i]->label(), count ? sum / count : 0.0});
  }
  h << figure(barChartSvg("Mean off-diagonal entry per recording", "", bars),
              "Step " + std::to_string(step) + ": mean cross-channel value per recording");
  return h.str();
}

std::string studyReportHtml(const StudyManifest& m) {
  struct Row {
    const StudyTask* task;
    std::optional<TaskStatus> status;
    bool complete = false;
    std::optional<JsonValue> run;
  };
  std::vector<Row> rows;
  double totalWall = 0;
  int done = 0, failed = 0;
  for (const StudyTask& t : m.tasks) {
    Row r{&t, readTaskStatus(m.root, t.index), false, std::nullopt};
    r.complete = taskComplete(m, t, r.status);
    if (r.complete) {
      ++done;
      totalWall += r.status->wallSeconds;
      try {
        r.run = readJsonFile(taskRunSummaryPath(m.root, t.index));
      } catch (const Error&) {
      }
    } else if (r.status && (r.status->state == TaskState::Failed ||
                            r.status->state == TaskState::Interrupted)) {
      ++failed;
    }
    rows.push_back(std::move(r));
  }
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
    << "<title>ModeScope study report</title><style>"
    << "body{font-family:sans-serif;margin:2em;max-width:1100px}"
    << "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px;"
    << "font-size:13px;text-align:left}th{background:#eee}.done{color:#2e7d32}.failed{color:#"
       "c62828}"
    << ".interrupted{color:#ef6c00}pre{background:#f6f6f6;padding:1em;overflow:auto}"
    << "</style></head><body>\n";
  h << "<h1>ModeScope study report</h1>\n<p>" << htmlEscape(m.description) << "</p>\n";
  h << "<table id='summary'><tr><th>recordings</th><th>done</th><th>failed</th><th>other</th>"
    << "<th>compute time of the done tasks</th><th>mean per recording</th><th>backend</th>"
    << "<th>software</th><th>written</th></tr><tr><td>" << m.tasks.size() << "</td><td>" << done
    << "</td><td>" << failed << "</td><td>"
    << m.tasks.size() - static_cast<std::size_t>(done + failed) << "</td><td>" << fmt(totalWall)
    << " s</td><td>" << (done ? fmt(totalWall / done, 2) : std::string("-")) << " s</td><td>"
    << htmlEscape(m.backend) << "</td><td>" << htmlEscape(softwareVersion()) << "</td><td>"
    << utcNowIso8601() << "</td></tr></table>\n";

  // Every recording.
  h << "<h2>Recordings</h2>\n<table id='recordings'><tr><th>#</th><th>recording</th>"
    << "<th>state</th><th>time (s)</th><th>backend</th><th>host / GPU</th><th>message</th></tr>\n";
  std::vector<Bar> timeBars;
  for (const Row& r : rows) {
    const TaskState state = r.complete ? TaskState::Done
                            : r.status && r.status->state == TaskState::Done
                                ? TaskState::Pending  // done with other parameters: to redo
                                : (r.status ? r.status->state : TaskState::Pending);
    std::string backend;
    if (r.run) {
      if (const JsonValue* s = stepOf(*r.run, 1)) {
        const JsonValue* b = s->find("backend");
        const JsonValue* d = b ? b->find("description") : nullptr;
        if (d && d->kind() == JsonValue::Kind::String) backend = d->asString();
      }
    }
    h << "<tr><td>" << r.task->index << "</td><td>" << htmlEscape(r.task->label())
      << "</td><td class='" << taskStateName(state) << "'>" << taskStateName(state) << "</td><td>"
      << (r.status ? fmt(r.status->wallSeconds, 2) : std::string("-")) << "</td><td>"
      << htmlEscape(backend) << "</td><td>"
      << htmlEscape(r.status
                        ? r.status->host + (r.status->gpu.empty() ? "" : " / GPU " + r.status->gpu)
                        : std::string())
      << "</td><td>" << htmlEscape(r.status && !r.complete ? r.status->message : std::string())
      << "</td></tr>\n";
    if (r.status) {
      timeBars.push_back({r.task->label(), r.status->wallSeconds, stateColour(state)});
    }
  }
  h << "</table>\n";
  h << "<h2>Timings</h2>\n"
    << figure(barChartSvg("Wall time per recording (green done, red failed)", "s", timeBars),
              "Wall time per recording");

  // Group summaries, one per step that has one.
  h << "<h2>Group summaries</h2>\n";
  bool anySummary = false;
  const std::size_t stepCount = m.tasks.empty() ? 0 : m.tasks.front().outputs.size();
  for (std::size_t si = 0; si < stepCount; ++si) {
    const StudyOutput& o = m.tasks.front().outputs[si];
    if (o.kind == "emd" || o.kind == "memd") {
      // IMFs per channel position over the done recordings.
      std::map<std::size_t, std::vector<int>> perChannel;
      for (const Row& r : rows) {
        if (!r.run) continue;
        const JsonValue* s = stepOf(*r.run, o.step);
        const JsonValue* c = s ? s->find("imf_counts") : nullptr;
        if (!c || c->kind() != JsonValue::Kind::Array) continue;
        for (std::size_t k = 0; k < c->asArray().size(); ++k)
          perChannel[k].push_back(static_cast<int>(c->asArray()[k].asDouble()));
      }
      if (perChannel.empty()) continue;
      anySummary = true;
      h << "<h3>Step " << o.step << " (emd): IMFs per channel over " << perChannel[0].size()
        << " recordings</h3>\n<table class='group'><tr><th>channel (selection order)</th>"
        << "<th>mean IMFs</th><th>min</th><th>max</th></tr>\n";
      std::vector<Bar> bars;
      for (const auto& [k, v] : perChannel) {
        double mean = 0;
        for (int x : v) mean += x;
        mean /= static_cast<double>(v.size());
        h << "<tr><td>" << k + 1 << "</td><td>" << fmt(mean, 2) << "</td><td>"
          << *std::min_element(v.begin(), v.end()) << "</td><td>"
          << *std::max_element(v.begin(), v.end()) << "</td></tr>\n";
        bars.push_back({"channel " + std::to_string(k + 1), mean});
      }
      h << "</table>\n"
        << figure(barChartSvg("Mean number of IMFs per channel", "IMFs", bars),
                  "Step " + std::to_string(o.step) + ": mean IMFs per channel");
    } else if (o.kind == "ica") {
      std::vector<Bar> bars;
      h << "<h3>Step " << o.step << " (ica): components per recording</h3>\n"
        << "<table class='group'><tr><th>recording</th><th>components</th><th>steps</th>"
        << "<th>converged</th></tr>\n";
      int converged = 0;
      for (const Row& r : rows) {
        if (!r.run) continue;
        const JsonValue* s = stepOf(*r.run, o.step);
        if (!s) continue;
        const JsonValue* c = s->find("components");
        const JsonValue* n = s->find("ica_steps");
        const JsonValue* cv = s->find("converged");
        const int comps =
            c && c->kind() == JsonValue::Kind::Number ? static_cast<int>(c->asDouble()) : 0;
        const bool conv = cv && cv->kind() == JsonValue::Kind::Bool && cv->asBool();
        converged += conv;
        h << "<tr><td>" << htmlEscape(r.task->label()) << "</td><td>" << comps << "</td><td>"
          << (n && n->kind() == JsonValue::Kind::Number ? fmt(n->asDouble(), 0) : "-")
          << "</td><td>" << (conv ? "yes" : "no") << "</td></tr>\n";
        bars.push_back({r.task->label(), static_cast<double>(comps)});
      }
      h << "</table>\n<p>" << converged << " of " << bars.size()
        << " decompositions converged.</p>\n";
      if (!bars.empty()) {
        anySummary = true;
        h << figure(barChartSvg("ICA components per recording", "", bars),
                    "Step " + std::to_string(o.step) + ": ICA components per recording");
      }
    } else if (o.kind == "xapen") {
      std::vector<const StudyTask*> done;
      for (const Row& r : rows)
        if (r.complete) done.push_back(r.task);
      const std::string section = entropyGroupSummary(m, done, si, o.step);
      if (!section.empty()) {
        anySummary = true;
        h << section;
      }
    }
  }
  if (!anySummary) {
    h << "<p>No step of this pipeline has a group summary yet (filter steps have none), or no "
         "recording is done.</p>\n";
  }

  // The pipeline.
  h << "<h2>Pipeline</h2>\n<table id='steps'><tr><th>step</th><th>kind</th><th>output "
       "(first recording)</th></tr>\n";
  for (std::size_t si = 0; si < stepCount; ++si) {
    const StudyOutput& o = m.tasks.front().outputs[si];
    h << "<tr><td>" << o.step << "</td><td>" << o.kind << "</td><td>" << htmlEscape(o.file)
      << "</td></tr>\n";
  }
  h << "</table>\n<pre>" << htmlEscape(readText(studyPipelinePath(m.root))) << "</pre>\n";
  h << "</body></html>\n";
  return h.str();
}

std::string writeStudyReport(const StudyManifest& m) {
  const std::string path = (fs::path(studyDir(m.root)) / "report.html").string();
  writeTextAtomically(path, studyReportHtml(m), "the study report");
  return path;
}

}  // namespace modescope
