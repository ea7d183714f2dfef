// Internal: the schema identifiers of ModeScope's HDF5 files (docs/hdf5-schema.md) and the
// checks shared by the recording and session readers. Callers hold h5::hdf5Mutex().
#pragma once

#include <H5Cpp.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_util.h"

namespace modescope {

inline constexpr const char* kSchemaAttribute = "modescope_schema";
inline constexpr const char* kRecordingSchema = "modescope-recording/1";
inline constexpr const char* kSessionSchema = "modescope-session/1";
inline constexpr int kRecordingSchemaVersion = 1;
inline constexpr int kSessionSchemaVersion = 1;

enum class SchemaKind { Other, Recording, Session };
struct SchemaVersion {
  SchemaKind kind = SchemaKind::Other;
  int version = 0;
};

// "modescope-recording/1" -> {Recording, 1}; anything else -> {Other, 0}.
inline SchemaVersion parseSchema(const std::string& s) {
  const auto parse = [&](const std::string& prefix, SchemaKind kind) -> SchemaVersion {
    if (s.rfind(prefix, 0) != 0 || s.size() == prefix.size()) return {};
    const std::string num = s.substr(prefix.size());
    if (num.find_first_not_of("0123456789") != std::string::npos || num.size() > 6) return {};
    return {kind, std::atoi(num.c_str())};
  };
  SchemaVersion v = parse("modescope-recording/", SchemaKind::Recording);
  if (v.kind == SchemaKind::Other) v = parse("modescope-session/", SchemaKind::Session);
  return v;
}

// Fails (InvalidInputError) unless `group` carries modescope_schema = a recording schema this
// build reads.
void checkRecordingSchema(const h5::Reader& reader, const H5::Group& group);

// File access: HDF5's file locking kept but not required (NFS, some container mounts).
H5::FileAccPropList readAccess();
H5::FileAccPropList writeAccess();

// Writes a new HDF5 file at `path` as every ModeScope writer does: AtomicOutput's temporary file
// is created with writeAccess(), `fill` writes under its root group, and the file appears under
// `path` only when all of it succeeded (a failure or a cancel leaves nothing there). `what`
// names the content in the error message ("the recording"). Takes h5::hdf5Mutex() itself, so
// the caller must not hold it (it is recursive, but the commit belongs outside it); `fill` runs
// under it. An H5::Exception becomes OutputError naming `path`; anything else `fill` throws
// (Cancelled, errors of its own) passes through.
void writeHdf5FileAtomically(const std::string& path, const std::string& what,
                             const std::function<void(H5::Group& root)>& fill);

// The string attribute modescope_schema of the root group of the HDF5 file at `path`, as
// stored; nullopt when the file is not HDF5, cannot be opened, or has no such string attribute.
// Never throws. Takes h5::hdf5Mutex() itself.
std::optional<std::string> rootSchemaAttribute(const std::string& path);

// Whether rootSchemaAttribute(path), less the NULs a fixed-length string is padded with, starts
// with `prefix` ("modescope-ica/"). Never throws.
bool rootSchemaHasPrefix(const std::string& path, const std::string& prefix);

// Fails (InvalidInputError at `where`, "written by a newer ModeScope") when the file's schema
// `version` is above the `supported` one this build reads; `remedy` says what to do.
void checkSchemaNotNewer(const h5::Reader& reader, const std::string& where,
                         const std::string& schema, int version, int supported,
                         const std::string& remedy);

// A result file's schema ("modescope-ica/1") and the wording of its refusals.
struct ResultSchema {
  const char* schema;         // what this build writes, e.g. "modescope-ica/1"
  const char* prefix;         // the part before the version, e.g. "modescope-ica/"
  int version;                // the newest version this build reads
  std::string missingFound;   // found text when the root has no schema attribute
  std::string missingRemedy;  // remedy then
  std::string otherRemedy;    // remedy for another schema (another kind of file)
};

// Fails (InvalidInputError at /@modescope_schema) unless `root` carries `s.prefix` followed by
// a version number no newer than s.version.
void checkResultSchema(const h5::Reader& reader, const H5::Group& root, const ResultSchema& s);

// How readHdf5File words the refusals it makes itself.
struct Hdf5ReadTerms {
  std::string content;   // what HDF5 could not read: "file", "session" ("a file HDF5 cannot read")
  std::string expected;  // what a good file is: "a readable ModeScope ICA result (...)"
  std::string remedy;    // what the user can do about a damaged file
  // The object named when the content does not fit in memory (std::bad_alloc, std::length_error
  // while parsing); empty: those pass through untranslated.
  std::string dataObject;
};

// Reads a whole HDF5 file at `path` as every ModeScope file reader does: takes h5::hdf5Mutex()
// (the caller must not hold H5:: objects outside it), opens the file read-only
// (openHdf5ForReading's refusals) and hands `parse` a Reader for `path` and the root group. An
// H5::Exception out of `parse` becomes InvalidInputError at "/" worded from `terms`, and so do
// memory failures where terms.dataObject is set; InvalidInputError from `parse` passes through.
void readHdf5File(const std::string& path, const Hdf5ReadTerms& terms,
                  const std::function<void(const h5::Reader&, const H5::Group& root)>& parse);

// readHdf5File for a parser that returns the file's content.
template <typename Parse>
auto readHdf5FileAs(const std::string& path, const Hdf5ReadTerms& terms, Parse parse) {
  std::optional<decltype(parse(std::declval<const h5::Reader&>(),
                               std::declval<const H5::Group&>()))>
      out;
  readHdf5File(path, terms,
               [&](const h5::Reader& r, const H5::Group& root) { out.emplace(parse(r, root)); });
  return std::move(*out);
}

// writeRecordingToGroup without its error translation: throws H5::Exception, so that callers
// writing a whole file can name the file the user chose rather than its temporary name.
void writeRecordingGroup(const Recording& rec, H5::Group& group, const Provenance& provenance,
                         JobContext& ctx);

// Opens reader.file() read-only into `file`; a missing, non-HDF5, truncated or damaged file
// gives an InvalidInputError that says which.
void openHdf5ForReading(const h5::Reader& reader, H5::H5File& file);

}  // namespace modescope
