// The plan of a study (docs/study.md): one task per recording, the derivative file names each
// task writes, and the hash that says whether a finished task is still up to date. The plan is
// written as <root>/study/manifest.json next to a copy of the pipeline
// (<root>/study/pipeline.json); the task processes, the executors, `study retry`, `study status`
// and the report read it back.
//
// Layout under the output root (a BIDS Derivatives dataset, derivatives/modescope/ for a BIDS
// input):
//   dataset_description.json                      DatasetType derivative, GeneratedBy
//   sub-01/eeg/sub-01_task-rest_desc-<label>_imf.h5 (+ .json sidecar)   the outputs
//   study/manifest.json, study/pipeline.json      the plan
//   study/status/task-0003.json                   one status file per task (study_status.h)
//   study/logs/task-0003.log                      the task's stderr
//   study/runs/task-0003.json                     `modescope-cli run`'s run.json of the task
//   study/work/task-0003/                         the running task's folder (removed when done)
//
// Thread rules: plain values; reading and writing touch only the files named.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/core/pipeline.h"
#include "app/core/study_scan.h"

namespace modescope {

// One file a task writes: a step's result under its derivative name.
struct StudyOutput {
  int step = 0;         // 1-based step number
  std::string kind;     // "filter", "emd", "ica"
  std::string runName;  // the name `modescope-cli run` gives it: "02-emd.h5"
  std::string file;     // relative to the root: "sub-01/eeg/sub-01_task-rest_desc-x_imf.h5"
  std::string sidecar;  // the same with .json
  int inputStep = 0;    // the filter step whose output it reads; 0 = the recording
};

struct StudyTask {
  int index = 0;  // 0-based; the Slurm array index
  StudyRecording recording;
  std::vector<StudyOutput> outputs;
  std::string hash;  // of the pipeline, backend, software version and the recording's size/time
  std::string label() const { return recording.stem; }
};

struct StudyManifest {
  std::string root;            // the output root, absolute
  std::string pipelineSource;  // the pipeline file as given
  std::string description;     // the pipeline's description
  std::string desc;            // the _desc-<label> label
  std::string backend;         // "auto", "cpu" or "cuda": `run --backend`
  double timeoutSeconds = 0;   // per task; 0 = none
  std::string inputKind;       // "bids" or "list"
  std::string bidsRoot;        // for "bids"
  std::vector<StudyTask> tasks;
};

// <root>/study/...: the fixed names above.
std::string studyDir(const std::string& root);
std::string manifestPath(const std::string& root);
std::string studyPipelinePath(const std::string& root);
std::string taskStatusPath(const std::string& root, int index);
std::string taskLogPath(const std::string& root, int index);
std::string taskRunSummaryPath(const std::string& root, int index);
std::string taskWorkDir(const std::string& root, int index);

// The label from --desc or the pipeline file's stem: letters and digits only (BIDS labels).
// Throws InvalidParameterError when nothing is left.
std::string studyDescLabel(const std::string& wanted);

// The tasks of `recordings`: output names keep the source entities, add _desc-<label> (with
// the step number when a kind repeats) and the kind's suffix (a filter step keeps the source
// suffix, eeg/meg/ieeg; emd: imf; ica: ica).
StudyManifest planStudy(const Pipeline& pipeline, const std::string& pipelineText,
                        std::vector<StudyRecording> recordings, const std::string& root,
                        const std::string& desc, const std::string& backend);

// FNV-1a 64 over `text`, 16 hex digits (a change detector, not a security hash).
std::string fnv1aHex(const std::string& text);

// Writes manifest.json and pipeline.json (atomically) and dataset_description.json, creating the
// folders. Throws OutputError naming the file (a full disk, no permission).
void writeStudyFiles(const StudyManifest& manifest, const std::string& pipelineText);
// Reads <root>/study/manifest.json; InvalidInputError naming the field when it is damaged, and
// saying to start the study with `modescope-cli study PIPELINE ...` when there is none.
StudyManifest readManifest(const std::string& root);

}  // namespace modescope
