#include "engine/io/hdf5_util.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope::h5 {
namespace {

const char* kDamagedRemedy =
    "The file may be truncated or damaged; write it again from the original recording";

std::string hdf5Detail(const H5::Exception& e) {
  std::string d = e.getDetailMsg();
  return d.empty() ? std::string("an HDF5 error") : "HDF5: " + d;
}

// Runs `f`; an HDF5 failure becomes InvalidInputError naming `object`.
template <typename F>
auto guarded(const Reader& r, const std::string& object, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const H5::Exception& e) {
    r.fail(object, "an object HDF5 cannot read (" + hdf5Detail(e) + ")",
           "a readable object of the ModeScope schema (docs/hdf5-schema.md)", kDamagedRemedy);
  } catch (const std::length_error&) {
    r.fail(object, "a size larger than the memory available", "a size that fits in memory",
           kDamagedRemedy);
  } catch (const std::bad_alloc&) {
    r.fail(object, "a size larger than the memory available", "a size that fits in memory",
           kDamagedRemedy);
  }
}

H5::Attribute replaceAttribute(H5::H5Object& object, const std::string& name,
                               const H5::DataType& type) {
  if (object.attrExists(name)) object.removeAttr(name);
  return object.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
}

std::string typeClassName(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER:
      return "an integer";
    case H5T_FLOAT:
      return "a floating-point number";
    case H5T_STRING:
      return "a string";
    case H5T_COMPOUND:
      return "a compound";
    case H5T_ENUM:
      return "an enumeration";
    case H5T_ARRAY:
      return "an array";
    default:
      return "a value of another HDF5 type class";
  }
}

// Tables (channels, annotations, provenance) are small; a column claiming more rows or bytes
// than this is a damaged size field, and reading it would exhaust memory (or time) before HDF5
// notices anything.
constexpr uint64_t kMaxTableBytes = uint64_t{1} << 28;
constexpr int64_t kMaxTableRows = int64_t{1} << 24;

// A damaged dimension can claim far more entries than the file stores; for datasets that are not
// chunked the stored size must cover the declared one.
void checkTableSize(const Reader& r, const H5::DataSet& ds, const std::string& object, int64_t n,
                    std::size_t width) {
  if (n > kMaxTableRows ||
      static_cast<uint64_t>(n) > kMaxTableBytes / std::max<std::size_t>(width, 1)) {
    r.fail(object, std::to_string(n) + " entries of " + std::to_string(width) + " bytes",
           "a table column of at most " + std::to_string(kMaxTableRows) + " entries and 256 MiB",
           kDamagedRemedy);
  }
  const bool chunked = ds.getCreatePlist().getLayout() == H5D_CHUNKED;
  const uint64_t declared = static_cast<uint64_t>(n) * ds.getDataType().getSize();
  if (!chunked && ds.getStorageSize() < declared) {
    r.fail(object,
           std::to_string(n) + " entries declared but only " + std::to_string(ds.getStorageSize()) +
               " bytes stored",
           std::to_string(declared) + " bytes", kDamagedRemedy);
  }
}

}  // namespace

std::recursive_mutex& hdf5Mutex() {
  static std::recursive_mutex m;
  return m;
}

void initialiseHdf5() {
  static bool done = false;
  if (!done) {
    H5::Exception::dontPrint();
    done = true;
  }
}

H5::StrType utf8StringType(std::size_t bytes) {
  H5::StrType t(H5::PredType::C_S1, std::max<std::size_t>(bytes, 1));
  t.setCset(H5T_CSET_UTF8);
  t.setStrpad(H5T_STR_NULLPAD);
  return t;
}

std::string childPath(const H5::H5Object& parent, const std::string& child) {
  std::string p;
  try {
    p = parent.getObjName();
  } catch (const H5::Exception&) {
    p = "?";
  }
  if (p.empty() || p.back() != '/') p += '/';
  return p + child;
}

void setAttribute(H5::H5Object& object, const std::string& name, const std::string& value) {
  const H5::StrType t = utf8StringType(value.size());
  std::vector<char> buf(std::max<std::size_t>(value.size(), 1), '\0');
  std::copy(value.begin(), value.end(), buf.begin());
  replaceAttribute(object, name, t).write(t, buf.data());
}

void setAttribute(H5::H5Object& object, const std::string& name, const char* value) {
  setAttribute(object, name, std::string(value));
}

void setAttribute(H5::H5Object& object, const std::string& name, double value) {
  replaceAttribute(object, name, H5::PredType::NATIVE_DOUBLE)
      .write(H5::PredType::NATIVE_DOUBLE, &value);
}

void setAttribute(H5::H5Object& object, const std::string& name, int64_t value) {
  replaceAttribute(object, name, H5::PredType::NATIVE_INT64)
      .write(H5::PredType::NATIVE_INT64, &value);
}

void setUnsignedAttribute(H5::H5Object& object, const std::string& name, uint64_t value) {
  replaceAttribute(object, name, H5::PredType::STD_U64LE)
      .write(H5::PredType::NATIVE_UINT64, &value);
}

void writeStrings(H5::Group& group, const std::string& name, const std::vector<std::string>& v) {
  std::size_t width = 1;
  for (const auto& s : v) width = std::max(width, s.size());
  const H5::StrType t = utf8StringType(width);
  const hsize_t n = v.size();
  H5::DSetCreatPropList dcpl;
  // Long columns (thousands of annotation texts) are mostly padding: compress them.
  constexpr std::size_t kCompressAbove = 64 * 1024;
  if (n > 0 && n * width > kCompressAbove) {
    const hsize_t chunk = std::max<hsize_t>(1, std::min<hsize_t>(n, kCompressAbove / width));
    dcpl.setChunk(1, &chunk);
    dcpl.setDeflate(4);
  }
  H5::DataSet ds = group.createDataSet(name, t, H5::DataSpace(1, &n), dcpl);
  if (n == 0) return;
  std::vector<char> buf(static_cast<std::size_t>(n) * width, '\0');
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::copy(v[i].begin(), v[i].end(), buf.begin() + static_cast<std::ptrdiff_t>(i * width));
  }
  ds.write(buf.data(), t);
}

namespace {
template <typename T>
void writeNumbers(H5::Group& group, const std::string& name, const std::vector<T>& v,
                  const H5::PredType& fileType, const H5::PredType& memType) {
  const hsize_t n = v.size();
  H5::DataSet ds = group.createDataSet(name, fileType, H5::DataSpace(1, &n));
  if (n > 0) ds.write(v.data(), memType);
}
}  // namespace

void writeDoubles(H5::Group& group, const std::string& name, const std::vector<double>& v) {
  writeNumbers(group, name, v, H5::PredType::IEEE_F64LE, H5::PredType::NATIVE_DOUBLE);
}
void writeInt64s(H5::Group& group, const std::string& name, const std::vector<int64_t>& v) {
  writeNumbers(group, name, v, H5::PredType::STD_I64LE, H5::PredType::NATIVE_INT64);
}
void writeInt32s(H5::Group& group, const std::string& name, const std::vector<int32_t>& v) {
  writeNumbers(group, name, v, H5::PredType::STD_I32LE, H5::PredType::NATIVE_INT32);
}

// ---------------------------------------------------------------------------------------------

void Reader::fail(const std::string& object, const std::string& found, const std::string& expected,
                  const std::string& remedy) const {
  throw InvalidInputError(file_, object, found, expected, remedy);
}

bool Reader::hasChild(const H5::Group& parent, const std::string& name) const {
  return guarded(*this, childPath(parent, name), [&] { return parent.nameExists(name); });
}

H5::Group Reader::group(const H5::Group& parent, const std::string& name) const {
  const std::string path = childPath(parent, name);
  if (!hasChild(parent, name)) {
    fail(path, "no such group", "the group " + path + " (docs/hdf5-schema.md)",
         "The file is incomplete or was not written by ModeScope; write it again");
  }
  return guarded(*this, path, [&] {
    if (parent.childObjType(name) != H5O_TYPE_GROUP) {
      fail(path, "an object that is not a group", "a group");
    }
    return parent.openGroup(name);
  });
}

H5::DataSet Reader::dataset(const H5::Group& parent, const std::string& name) const {
  const std::string path = childPath(parent, name);
  if (!hasChild(parent, name)) {
    fail(path, "no such dataset", "the dataset " + path + " (docs/hdf5-schema.md)",
         "The file is incomplete or was not written by ModeScope; write it again");
  }
  return guarded(*this, path, [&] {
    if (parent.childObjType(name) != H5O_TYPE_DATASET) {
      fail(path, "an object that is not a dataset", "a dataset");
    }
    return parent.openDataSet(name);
  });
}

bool Reader::hasAttribute(const H5::H5Object& object, const std::string& name) const {
  return guarded(*this, childPath(object, "@" + name), [&] { return object.attrExists(name); });
}

std::string Reader::stringAttribute(const H5::H5Object& object, const std::string& name) const {
  const std::string path = childPath(object, "@" + name);
  if (!hasAttribute(object, name)) {
    fail(path, "no such attribute", "a string attribute '" + name + "'",
         "The file is incomplete or was not written by ModeScope; write it again");
  }
  return guarded(*this, path, [&] {
    H5::Attribute a = object.openAttribute(name);
    const H5T_class_t c = a.getTypeClass();
    if (c != H5T_STRING) fail(path, typeClassName(c), "a string");
    if (a.getSpace().getSimpleExtentNpoints() != 1) {
      fail(path, std::to_string(a.getSpace().getSimpleExtentNpoints()) + " values", "one string");
    }
    std::string s;
    a.read(a.getStrType(), s);
    // Fixed-length strings keep their padding; our own are variable-length.
    while (!s.empty() && (s.back() == '\0')) s.pop_back();
    return s;
  });
}

std::string Reader::stringAttribute(const H5::H5Object& object, const std::string& name,
                                    const std::string& fallback) const {
  return hasAttribute(object, name) ? stringAttribute(object, name) : fallback;
}

double Reader::doubleAttribute(const H5::H5Object& object, const std::string& name) const {
  const std::string path = childPath(object, "@" + name);
  if (!hasAttribute(object, name)) {
    fail(path, "no such attribute", "a numeric attribute '" + name + "'",
         "The file is incomplete or was not written by ModeScope; write it again");
  }
  return guarded(*this, path, [&] {
    H5::Attribute a = object.openAttribute(name);
    const H5T_class_t c = a.getTypeClass();
    if (c != H5T_FLOAT && c != H5T_INTEGER) fail(path, typeClassName(c), "a number");
    if (a.getSpace().getSimpleExtentNpoints() != 1) {
      fail(path, std::to_string(a.getSpace().getSimpleExtentNpoints()) + " values", "one number");
    }
    double v = 0;
    a.read(H5::PredType::NATIVE_DOUBLE, &v);
    return v;
  });
}

double Reader::doubleAttribute(const H5::H5Object& object, const std::string& name,
                               double fallback) const {
  return hasAttribute(object, name) ? doubleAttribute(object, name) : fallback;
}

// One scalar integer attribute read as T (int64_t or uint64_t, HDF5 converting).
template <class T>
T readIntegerAttribute(const Reader& r, const H5::H5Object& object, const std::string& name,
                       const H5::PredType& memoryType) {
  const std::string path = childPath(object, "@" + name);
  if (!r.hasAttribute(object, name)) {
    r.fail(path, "no such attribute", "an integer attribute '" + name + "'",
           "The file is incomplete or was not written by ModeScope; write it again");
  }
  return guarded(r, path, [&] {
    H5::Attribute a = object.openAttribute(name);
    const H5T_class_t c = a.getTypeClass();
    if (c != H5T_INTEGER) r.fail(path, typeClassName(c), "an integer");
    if (a.getSpace().getSimpleExtentNpoints() != 1) {
      r.fail(path, std::to_string(a.getSpace().getSimpleExtentNpoints()) + " values",
             "one integer");
    }
    T v = 0;
    a.read(memoryType, &v);
    return v;
  });
}

int64_t Reader::intAttribute(const H5::H5Object& object, const std::string& name) const {
  return readIntegerAttribute<int64_t>(*this, object, name, H5::PredType::NATIVE_INT64);
}

uint64_t Reader::unsignedAttribute(const H5::H5Object& object, const std::string& name) const {
  return readIntegerAttribute<uint64_t>(*this, object, name, H5::PredType::NATIVE_UINT64);
}

int64_t Reader::intAttribute(const H5::H5Object& object, const std::string& name,
                             int64_t fallback) const {
  return hasAttribute(object, name) ? intAttribute(object, name) : fallback;
}

int64_t Reader::length1d(const H5::DataSet& ds, const std::string& object) const {
  return guarded(*this, object, [&]() -> int64_t {
    H5::DataSpace space = ds.getSpace();
    const int rank = space.getSimpleExtentNdims();
    if (rank != 1) {
      fail(object, "a dataset of rank " + std::to_string(rank), "a 1-D dataset");
    }
    hsize_t n = 0;
    space.getSimpleExtentDims(&n);
    return static_cast<int64_t>(n);
  });
}

std::vector<std::string> Reader::strings(const H5::Group& g, const std::string& name,
                                         int64_t expected) const {
  const std::string path = childPath(g, name);
  H5::DataSet ds = dataset(g, name);
  const int64_t n = length1d(ds, path);
  if (expected >= 0 && n != expected) {
    fail(path, std::to_string(n) + " entries",
         std::to_string(expected) + " entries (one per row of the table)", kDamagedRemedy);
  }
  return guarded(*this, path, [&] {
    const H5T_class_t c = ds.getTypeClass();
    if (c != H5T_STRING) fail(path, typeClassName(c), "strings");
    std::vector<std::string> out;
    if (n == 0) return out;
    H5::StrType fileType = ds.getStrType();
    checkTableSize(*this, ds, path, n,
                   sizeof(std::string) + (fileType.isVariableStr() ? 0 : fileType.getSize()));
    out.reserve(static_cast<std::size_t>(n));
    if (fileType.isVariableStr()) {
      H5::StrType mem(H5::PredType::C_S1, H5T_VARIABLE);
      mem.setCset(fileType.getCset());
      std::vector<char*> buf(static_cast<std::size_t>(n), nullptr);
      ds.read(buf.data(), mem);
      for (char* p : buf) out.emplace_back(p ? p : "");
      H5::DataSpace space = ds.getSpace();
      H5::DataSet::vlenReclaim(buf.data(), mem, space);
    } else {
      const std::size_t len = fileType.getSize();
      std::vector<char> buf(static_cast<std::size_t>(n) * len);
      ds.read(buf.data(), fileType);
      for (int64_t i = 0; i < n; ++i) {
        std::string s(buf.data() + static_cast<std::size_t>(i) * len, len);
        while (!s.empty() && s.back() == '\0') s.pop_back();
        out.push_back(std::move(s));
      }
    }
    return out;
  });
}

H5::DataSet Reader::numeric1d(const H5::Group& g, const std::string& name, int64_t expected,
                              std::size_t& n) const {
  const std::string path = childPath(g, name);
  H5::DataSet ds = dataset(g, name);
  const int64_t len = length1d(ds, path);
  if (expected >= 0 && len != expected) {
    fail(path, std::to_string(len) + " entries",
         std::to_string(expected) + " entries (one per row of the table)", kDamagedRemedy);
  }
  const H5T_class_t c = guarded(*this, path, [&] { return ds.getTypeClass(); });
  if (c != H5T_FLOAT && c != H5T_INTEGER) fail(path, typeClassName(c), "numbers");
  guarded(*this, path, [&] { checkTableSize(*this, ds, path, len, sizeof(double)); });
  n = static_cast<std::size_t>(len);
  return ds;
}

std::vector<double> Reader::doubles(const H5::Group& g, const std::string& name,
                                    int64_t expected) const {
  std::size_t n = 0;
  H5::DataSet ds = numeric1d(g, name, expected, n);
  std::vector<double> out(n);
  if (n > 0) {
    guarded(*this, childPath(g, name), [&] { ds.read(out.data(), H5::PredType::NATIVE_DOUBLE); });
  }
  return out;
}

std::vector<int64_t> Reader::int64s(const H5::Group& g, const std::string& name,
                                    int64_t expected) const {
  std::size_t n = 0;
  H5::DataSet ds = numeric1d(g, name, expected, n);
  std::vector<int64_t> out(n);
  if (n > 0) {
    guarded(*this, childPath(g, name), [&] { ds.read(out.data(), H5::PredType::NATIVE_INT64); });
  }
  return out;
}

}  // namespace modescope::h5
