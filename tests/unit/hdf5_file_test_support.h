// Shared by the HDF5 result-file tests (tests/unit/hdf5_emd_test.cpp, hdf5_ica_test.cpp,
// hdf5_ar_test.cpp, ...): a fixture that gives each test its own temporary directory, the JSON
// writers that hand expected values to the h5py checkers, the message of the InvalidInputError a
// refused read throws, and the edits that damage a written file.
// Header-only; builds on shell_json_support.h.
#pragma once

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/io/hdf5_util.h"
#include "tests/unit/shell_json_support.h"

namespace modescope::test_support {

// Round-trip digits; doubles always carry a '.' or an exponent so that Python reads a float.
inline std::string numd(double v) {
  std::string s = jsonDouble(v);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// `v` as a JSON list, each element written by `f`.
template <typename T, typename F>
std::string list(const std::vector<T>& v, F f) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + f(v[i]);
  return s + "]";
}

// The /provenance group as the h5py checkers expect it: {"attrs":{...},"wall_seconds":...,
// "parameters":[[key,value],...]}.
inline std::string provenanceJson(const Provenance& pr) {
  return "{\"attrs\":{\"method\":" + jsonString(pr.method) + ",\"seed\":" + jsonString(pr.seed) +
         ",\"backend\":" + jsonString(pr.backend) + ",\"input_file\":" + jsonString(pr.inputFile) +
         ",\"selection\":" + jsonString(pr.selection) +
         ",\"created_at\":" + jsonString(pr.createdAt) +
         "},\"wall_seconds\":" + numd(pr.wallSeconds) + ",\"parameters\":" +
         list(pr.parameters,
              [](const std::pair<std::string, std::string>& kv) {
                return "[" + jsonString(kv.first) + "," + jsonString(kv.second) + "]";
              }) +
         "}";
}

// What `f` throws as InvalidInputError, or "(no InvalidInputError)" when it throws nothing.
inline std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidInputError& e) {
    return e.what();
  }
  return "(no InvalidInputError)";
}

// Replaces attribute `name` of group `group` in `file` by `value` (a string or a number), as a
// newer or damaged writer would have left it.
template <typename V>
void replaceAttribute(const std::string& file, const std::string& group, const std::string& name,
                      const V& value) {
  h5::Lock lock(h5::hdf5Mutex());
  H5::H5File f(file, H5F_ACC_RDWR);
  H5::Group g = f.openGroup(group);
  g.removeAttr(name);
  h5::setAttribute(g, name, value);
}

// Replaces dataset `name` of group `group` in `file` by an unwritten one of `type` and shape
// `dims`: the right kind of data in the wrong shape.
inline void replaceDataset(const std::string& file, const std::string& group,
                           const std::string& name, const H5::PredType& type,
                           const std::vector<hsize_t>& dims) {
  h5::Lock lock(h5::hdf5Mutex());
  H5::H5File f(file, H5F_ACC_RDWR);
  H5::Group g = f.openGroup(group);
  g.unlink(name);
  g.createDataSet(name, type, H5::DataSpace(static_cast<int>(dims.size()), dims.data()));
}

// Each test gets a fresh directory under the system temp dir (named from `prefix`), removed
// afterwards whatever the test left in it.
class TempDirTest : public ::testing::Test {
 protected:
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix_ + "-XXXXXX")).string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> listDir() const {
    std::vector<std::string> v;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      v.push_back(e.path().filename());
    return v;
  }
  std::string prefix_;
  std::filesystem::path dir_;
};

}  // namespace modescope::test_support
