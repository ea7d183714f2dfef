// openRecording: picks the reader (docs/readers.md). EDF/BDF go through our header check, then
// EDFlib; what EDFlib refuses, and formats it does not read, go to BioSig in a child process.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/bids_channels.h"
#include "engine/io/child_process.h"
#include "engine/io/edf_header.h"
#include "engine/io/hdf5_recording.h"
#include "engine/io/recording_io.h"
#include "engine/io/sample_plausibility.h"
#ifdef MODESCOPE_HAVE_EDFLIB
#include <edflib.h>

#include "engine/io/edflib_reader.h"
#endif

namespace modescope {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHelperName = "modescope-cli";

bool isExecutableFile(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// OpenOptions.helperExecutable, else modescope-cli next to the running program, else
// $MODESCOPE_CLI, else the first modescope-cli on PATH. "" when none is found.
std::string resolveHelper(const OpenOptions& options) {
  if (!options.helperExecutable.empty()) return options.helperExecutable;
  const std::string dir = currentExecutableDir();
  if (!dir.empty() && isExecutableFile(dir + "/" + kHelperName)) return dir + "/" + kHelperName;
  if (const char* env = std::getenv("MODESCOPE_CLI"); env && *env) return env;
  if (const char* path = std::getenv("PATH")) {
    for (const auto& d : split(path, ':')) {
      if (d.empty()) continue;
      const std::string candidate = d + "/" + kHelperName;
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return {};
}

bool biosigBuilt() {
#ifdef MODESCOPE_HAVE_BIOSIG
  return true;
#else
  return false;
#endif
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
  return s;
}

// Removes a temporary folder and what is in it, however the conversion ends.
class TempDir {
 public:
  TempDir() {
    std::string base = fs::temp_directory_path().string() + "/modescope-biosig-XXXXXX";
    if (::mkdtemp(base.data()) == nullptr) {
      throw OutputError(base,
                        std::string("cannot create a temporary folder: ") + std::strerror(errno));
    }
    path_ = base;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string lastLine(const std::string& text) {
  std::string t = trim(text);
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : trim(t.substr(nl + 1));
}

std::string signalText(int sig) {
  std::string s = "signal " + std::to_string(sig);
  if (const char* name = ::sigabbrev_np(sig)) s += std::string(" (SIG") + name + ")";
  return s;
}

// BioSig in a child process (`modescope-cli biosig-import IN OUT.h5`), then the HDF5 file it
// wrote, loaded into memory so the temporary file can go.
std::shared_ptr<Recording> readWithBiosigChild(const std::string& path, const OpenOptions& options,
                                               const std::string& helper) {
  TempDir dir;
  const std::string out = dir.path() + "/converted.h5";
  const ChildResult r =
      runChildProcess(helper, {"biosig-import", path, out}, options.fallbackTimeoutSeconds);
  const std::string expected = "a file the tolerant reader (BioSig) can read";
  switch (r.outcome) {
    case ChildResult::Outcome::CouldNotStart:
      throw InvalidInputError(path, "reader",
                              "the tolerant reader could not be started: " + r.stderrText,
                              "the helper '" + helper + "' (modescope-cli biosig-import)",
                              "Install modescope-cli next to this program or set MODESCOPE_CLI");
    case ChildResult::Outcome::Crashed:
      throw InvalidInputError(path, "file",
                              "the file could not be read (the tolerant reader failed: crashed "
                              "with " +
                                  signalText(r.signal) + ")",
                              expected,
                              "The file is probably damaged; re-export it from the recording "
                              "software or convert it to EDF+");
    case ChildResult::Outcome::TimedOut:
      throw InvalidInputError(path, "file",
                              "the file could not be read (the tolerant reader failed: did not "
                              "finish within " +
                                  formatNumber(options.fallbackTimeoutSeconds) + " s)",
                              expected,
                              "The file is probably damaged; if it is very large, raise the time "
                              "limit (OpenOptions.fallbackTimeoutSeconds)");
    case ChildResult::Outcome::Exited:
      if (r.exitCode != 0) {
        const std::string why = lastLine(r.stderrText);
        throw InvalidInputError(path, "file",
                                "the tolerant reader (BioSig) could not read it" +
                                    (why.empty() ? std::string() : ": " + why),
                                expected,
                                "Check that the file is complete and in a supported format");
      }
      break;
  }
  std::shared_ptr<Recording> rec = openHdf5Recording(out);
  // Load the samples: the temporary file is removed when this function returns.
  std::vector<std::vector<float>> data;
  data.reserve(rec->channels.size());
  for (std::size_t i = 0; i < rec->channels.size(); ++i) {
    data.push_back(rec->readChannel(i, 0, rec->channels[i].sampleCount));
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  rec->sourcePath = path;
  rec->info.reader = "BioSig";
  // The HDF5 reader notes that the temporary file came from elsewhere; here the original file is
  // the source, so that note would only mislead.
  std::erase_if(rec->diagnostics, [](const Diagnostic& d) { return d.code == "hdf5.source"; });
  return rec;
}

// A name for a format EDFlib does not read, from its signature or extension (BioSig's own name
// for it is in the "biosig.read" diagnostic).
std::string otherFormatName(const std::string& path, const std::string& magic) {
  if (magic.rfind("GDF ", 0) == 0) return trim(magic);
  const std::string ext = toLower(fs::path(path).extension().string());
  if (ext == ".vhdr") return "BrainVision";
  if (ext == ".cnt") return "Neuroscan CNT";
  if (ext == ".trc") return "Micromed TRC";
  if (ext.size() > 1) return toUpper(ext.substr(1));
  return "unknown format";
}

[[noreturn]] void throwUnsupported(const std::string& path, const std::string& magic) {
  throw InvalidInputError(path, "file format", "first bytes " + magic,
                          "one of: " + joined(supportedInputFormats()),
                          biosigBuilt() ? "Convert the file to EDF+ or BDF+"
                                        : "This build has no BioSig support; convert the file to "
                                          "EDF+ or BDF+, or install libbiosig-dev and rebuild");
}

std::string formatName(const EdfHeader& h) {
  return std::string(h.isBdf ? "BDF" : "EDF") + (h.isPlus ? "+" : "");
}

}  // namespace

std::vector<std::string> supportedInputFormats() {
  std::vector<std::string> v = {"EDF, EDF+, BDF, BDF+ (EDFlib; BioSig for files EDFlib refuses)",
                                "HDF5 (.h5/.hdf5, ModeScope schema)"};
  if (biosigBuilt()) {
    v.push_back(
        "through BioSig: GDF 1/2, BrainVision (.vhdr), Neuroscan CNT, EGI, Micromed TRC, "
        "Nihon Kohden, MIT/WFDB, SCP-ECG, HL7aECG, BIOPAC ACQ and other formats BioSig "
        "reads");
  }
  return v;
}

namespace {

// The reader's recording with the plausibility check's findings added (a shallow copy sharing
// the sample source, made only when there is something to add).
std::shared_ptr<const Recording> withSampleCheck(std::shared_ptr<const Recording> rec,
                                                 const OpenOptions& options, double recordSeconds) {
  if (!options.checkSamples || !rec) return rec;
  PlausibilityOptions check;
  check.recordSeconds = recordSeconds;
  const PlausibilityReport report = checkSamplePlausibility(*rec, check);
  if (report.clean()) return rec;
  auto checked = std::make_shared<Recording>(*rec);
  addPlausibilityDiagnostics(report, checked->diagnostics);
  return checked;
}

std::shared_ptr<const Recording> openUnchecked(const std::string& path, const OpenOptions& options,
                                               double* recordSeconds) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int e = errno;
    throw InvalidInputError(path, "file", std::strerror(e), "an existing recording file",
                            "Check the path");
  }
  if (S_ISDIR(st.st_mode)) {
    throw InvalidInputError(path, "file", "a folder", "a recording file",
                            "For BrainVision or other multi-file formats, open the header file");
  }
  if (st.st_size == 0) {
    throw InvalidInputError(path, "file size", "0 bytes", "a recording file with content",
                            "The file is empty; copy it again from its source");
  }
  std::string magic(8, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      const int e = errno;
      throw InvalidInputError(path, "file", std::string("cannot open: ") + std::strerror(e),
                              "a readable file", "Check the file's permissions");
    }
    in.read(magic.data(), 8);
    magic.resize(static_cast<std::size_t>(in.gcount()));
  }

  const std::string ext = toLower(fs::path(path).extension().string());
  if (ext == ".h5" || ext == ".hdf5" || magic == std::string("\x89HDF\r\n\x1a\n", 8)) {
    return openHdf5Recording(path);
  }

  const std::string helper = options.allowFallback && biosigBuilt() ? resolveHelper(options) : "";
  // The header alone first: scanning every record's annotation signal costs a pass over a large
  // file on a cold cache, and EDFlib checks those itself. The scan runs only to explain a refusal.
  EdfCheck check = checkEdfHeader(path, /*scanAnnotations=*/false);
  if (!check.looksLikeEdf) {
    if (helper.empty()) throwUnsupported(path, "'" + printableBytes(magic) + "'");
    std::shared_ptr<Recording> rec = readWithBiosigChild(path, options, helper);
    rec->info.format = otherFormatName(path, magic);
    applyBidsSidecarIfPresent(*rec, path);  // BrainVision, GDF, ... in a BIDS folder
    return rec;
  }
  *recordSeconds = check.header.recordDuration;
  for (const auto& f : check.findings) {
    if (f.fatal) {
      throw InvalidInputError(path, f.field, f.found, f.expected,
                              "The header is damaged or the file is not a complete EDF/BDF "
                              "recording; re-export it from the recording software");
    }
  }

  std::string edflibError = "EDFlib is not part of this build";
#ifdef MODESCOPE_HAVE_EDFLIB
  EdflibOpenResult r = openWithEdflib(path);
  if (r.recording) {
    if (!check.findings.empty()) {
      addDiagnostic(
          r.recording->diagnostics, Severity::Info, "edf.nonCompliant",
          "The header does not follow the " + formatName(check.header) +
              " specification in every detail (read anyway): " + summariseFindings(check.findings));
    }
    applyBidsSidecarIfPresent(*r.recording, path);  // the bad channels EDF cannot hold
    return r.recording;
  }
  edflibError = "EDFlib refused this file (" + r.errorMessage + ")";
  if (r.errorCode == EDFLIB_NO_SUCH_FILE_OR_DIRECTORY) {
    throw InvalidInputError(path, "file", r.errorMessage, "an existing recording file",
                            "Check the path");
  }
  check = checkEdfHeader(path, /*scanAnnotations=*/true);
#endif
  const std::string findings = check.findings.empty()
                                   ? std::string("no finding of our own header check explains it")
                                   : summariseFindings(check.findings);
  if (helper.empty()) {
    const EdfFinding* first = nullptr;
    for (const auto& f : check.findings) {
      if (f.refusedByEdflib && !first) first = &f;
    }
    const std::string remedy =
        options.allowFallback
            ? "Repair the header or convert the file (no tolerant reader is available: install "
              "modescope-cli with BioSig support or set MODESCOPE_CLI)"
            : "Allow the BioSig fallback, or repair the header";
    if (first) {
      throw InvalidInputError(
          path, first->field, first->found,
          first->expected + " (" + edflibError + "; all findings: " + findings + ")", remedy);
    }
    throw InvalidInputError(path, "file", edflibError, "a file EDFlib reads", remedy);
  }
  std::shared_ptr<Recording> rec = readWithBiosigChild(path, options, helper);
  rec->info.format = formatName(check.header);
  addDiagnostic(rec->diagnostics, Severity::Warning, "edf.edflibRefused",
                edflibError + "; read with BioSig instead. Non-compliant: " + findings);
  applyBidsSidecarIfPresent(*rec, path);
  return rec;
}

}  // namespace

std::shared_ptr<const Recording> openRecording(const std::string& path,
                                               const OpenOptions& options) {
  double recordSeconds = 0.0;  // the EDF/BDF data record; 0 (one second) for other formats
  std::shared_ptr<const Recording> rec = openUnchecked(path, options, &recordSeconds);
  return withSampleCheck(std::move(rec), options, recordSeconds);
}

}  // namespace modescope
