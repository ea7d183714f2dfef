// Internal helpers for ModeScope's HDF5 files (docs/hdf5-schema.md): the process-wide HDF5 lock,
// typed attribute and dataset writers, and a reader that turns every HDF5 failure and every
// missing or malformed object into an InvalidInputError naming the file and the object.
//
// Thread rule: the HDF5 library on this platform is the serial build, which is not thread-safe.
// Every HDF5 call in ModeScope, including the destructors of H5:: objects, runs while
// hdf5Mutex() is held. Declare the lock before any H5:: object in a scope so that it is
// released last.
#pragma once

#include <H5Cpp.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace modescope::h5 {

// Recursive because the session writer holds it while calling writeRecordingToGroup.
std::recursive_mutex& hdf5Mutex();
using Lock = std::lock_guard<std::recursive_mutex>;

// Turns HDF5's automatic error-stack printing off (once per process). Call under the lock.
void initialiseHdf5();

// Fixed-length, null-padded UTF-8 string type of `bytes` bytes (at least 1).
//
// Why fixed-length: HDF5 1.10 stores variable-length strings in a "global heap", and reading a
// damaged global heap crashes or hangs the library (seen in fuzzing: segmentation faults and
// endless loops in H5HG_read). Fixed-length strings live inside the dataset or attribute, where
// damage gives an error instead. The reader still accepts variable-length strings (files made
// by hand with h5py), with that risk.
H5::StrType utf8StringType(std::size_t bytes);

// Full HDF5 path of `child` inside `parent` ("/jobs/0/result" + "channels").
std::string childPath(const H5::H5Object& parent, const std::string& child);

// ---- writing (these throw H5::Exception; callers turn it into OutputError) ----
void setAttribute(H5::H5Object& object, const std::string& name, const std::string& value);
void setAttribute(H5::H5Object& object, const std::string& name, const char* value);
void setAttribute(H5::H5Object& object, const std::string& name, double value);
void setAttribute(H5::H5Object& object, const std::string& name, int64_t value);
// A uint64 attribute (seeds); a separate name so integer arguments never pick it by accident.
void setUnsignedAttribute(H5::H5Object& object, const std::string& name, uint64_t value);

void writeStrings(H5::Group& group, const std::string& name, const std::vector<std::string>& v);
void writeDoubles(H5::Group& group, const std::string& name, const std::vector<double>& v);
void writeInt64s(H5::Group& group, const std::string& name, const std::vector<int64_t>& v);
void writeInt32s(H5::Group& group, const std::string& name, const std::vector<int32_t>& v);

// ---- reading ----
// Reads objects of one file; every failure becomes InvalidInputError(file, object path, ...).
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& object, const std::string& found,
                         const std::string& expected, const std::string& remedy = {}) const;

  bool hasChild(const H5::Group& parent, const std::string& name) const;
  H5::Group group(const H5::Group& parent, const std::string& name) const;      // required
  H5::DataSet dataset(const H5::Group& parent, const std::string& name) const;  // required

  bool hasAttribute(const H5::H5Object& object, const std::string& name) const;
  std::string stringAttribute(const H5::H5Object& object, const std::string& name) const;
  std::string stringAttribute(const H5::H5Object& object, const std::string& name,
                              const std::string& fallback) const;
  double doubleAttribute(const H5::H5Object& object, const std::string& name) const;
  double doubleAttribute(const H5::H5Object& object, const std::string& name,
                         double fallback) const;
  int64_t intAttribute(const H5::H5Object& object, const std::string& name) const;
  int64_t intAttribute(const H5::H5Object& object, const std::string& name, int64_t fallback) const;
  // An integer attribute read as unsigned 64-bit (seeds).
  uint64_t unsignedAttribute(const H5::H5Object& object, const std::string& name) const;

  // 1-D datasets. `expected` >= 0 checks the length (parallel tables must agree).
  std::vector<std::string> strings(const H5::Group& g, const std::string& name,
                                   int64_t expected = -1) const;
  std::vector<double> doubles(const H5::Group& g, const std::string& name,
                              int64_t expected = -1) const;
  std::vector<int64_t> int64s(const H5::Group& g, const std::string& name,
                              int64_t expected = -1) const;

  // Length of a 1-D dataset; fails for other ranks.
  int64_t length1d(const H5::DataSet& ds, const std::string& object) const;

 private:
  H5::DataSet numeric1d(const H5::Group& g, const std::string& name, int64_t expected,
                        std::size_t& n) const;
  std::string file_;
};

}  // namespace modescope::h5
