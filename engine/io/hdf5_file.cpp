// The file-level steps every ModeScope HDF5 writer and file-type probe share
// (engine/io/hdf5_schema.h): the atomic write of a whole file, the guarded read of one, and the
// root schema attribute.
#include <H5Cpp.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/io/atomic_file.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"

namespace modescope {

void writeHdf5FileAtomically(const std::string& path, const std::string& what,
                             const std::function<void(H5::Group& root)>& fill) {
  AtomicOutput out(path);
  {
    // The lock is taken before (and so released after) every H5:: object in this scope.
    h5::Lock lock(h5::hdf5Mutex());
    h5::initialiseHdf5();
    std::unique_ptr<H5::H5File> file;
    try {
      file = std::make_unique<H5::H5File>(out.temporaryPath(), H5F_ACC_TRUNC,
                                          H5::FileCreatPropList::DEFAULT, writeAccess());
    } catch (const H5::Exception& e) {
      throw OutputError(path, "HDF5 could not create '" + out.temporaryPath() + "' (" +
                                  e.getDetailMsg() +
                                  "); check that the folder exists and is writable");
    }
    try {
      H5::Group root = file->openGroup("/");
      fill(root);
      root.close();
      file->close();
    } catch (const H5::Exception& e) {
      throw OutputError(path, "HDF5 could not write " + what + " (" + e.getDetailMsg() +
                                  "); check free disk space and that the folder is writable");
    }
  }
  out.commit();
}

void readHdf5File(const std::string& path, const Hdf5ReadTerms& terms,
                  const std::function<void(const h5::Reader&, const H5::Group& root)>& parse) {
  h5::Lock lock(h5::hdf5Mutex());
  h5::initialiseHdf5();
  h5::Reader r(path);
  H5::H5File file;
  openHdf5ForReading(r, file);
  try {
    H5::Group root = file.openGroup("/");
    parse(r, root);
  } catch (const H5::Exception& e) {
    r.fail("/", "a " + terms.content + " HDF5 cannot read (" + e.getDetailMsg() + ")",
           terms.expected, terms.remedy);
  } catch (const std::bad_alloc&) {
    if (terms.dataObject.empty()) throw;
    r.fail(terms.dataObject, "more values than the memory available holds",
           "a result that fits in memory", terms.remedy);
  } catch (const std::length_error&) {
    if (terms.dataObject.empty()) throw;
    r.fail(terms.dataObject, "a size larger than the memory available",
           "a size that fits in memory", terms.remedy);
  }
}

void checkSchemaNotNewer(const h5::Reader& r, const std::string& where, const std::string& schema,
                         int version, int supported, const std::string& remedy) {
  if (version > supported) {
    r.fail(where, "\"" + schema + "\" (written by a newer ModeScope)",
           "version " + std::to_string(supported) + " or older", remedy);
  }
}

void checkResultSchema(const h5::Reader& r, const H5::Group& root, const ResultSchema& s) {
  const std::string where = h5::childPath(root, "@modescope_schema");
  if (!r.hasAttribute(root, kSchemaAttribute)) {
    r.fail(where, s.missingFound, std::string("\"") + s.schema + "\"", s.missingRemedy);
  }
  const std::string schema = r.stringAttribute(root, kSchemaAttribute);
  const std::string prefix = s.prefix;
  const std::string num = schema.rfind(prefix, 0) == 0 ? schema.substr(prefix.size()) : "";
  if (num.empty() || num.size() > 6 || num.find_first_not_of("0123456789") != std::string::npos) {
    r.fail(where, "\"" + schema + "\"", std::string("\"") + s.schema + "\"", s.otherRemedy);
  }
  checkSchemaNotNewer(r, where, schema, std::atoi(num.c_str()), s.version,
                      "Update ModeScope to read this file");
}

std::optional<std::string> rootSchemaAttribute(const std::string& path) {
  h5::Lock lock(h5::hdf5Mutex());
  h5::initialiseHdf5();
  try {
    if (H5Fis_hdf5(path.c_str()) <= 0) return std::nullopt;
    H5::H5File file(path, H5F_ACC_RDONLY, H5::FileCreatPropList::DEFAULT, readAccess());
    H5::Group root = file.openGroup("/");
    if (!root.attrExists(kSchemaAttribute)) return std::nullopt;
    H5::Attribute a = root.openAttribute(kSchemaAttribute);
    if (a.getTypeClass() != H5T_STRING) return std::nullopt;
    std::string s;
    a.read(a.getStrType(), s);
    return s;
  } catch (const H5::Exception&) {
    return std::nullopt;
  }
}

bool rootSchemaHasPrefix(const std::string& path, const std::string& prefix) {
  std::optional<std::string> s = rootSchemaAttribute(path);
  if (!s) return false;
  while (!s->empty() && s->back() == '\0') s->pop_back();
  return s->rfind(prefix, 0) == 0;
}

}  // namespace modescope
