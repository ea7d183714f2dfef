// A method's parameters as attributes of a result file's group, written from its declarations
// (engine/method/param_table.h): one attribute per declared field, applicable or not, so the whole
// struct can be read back. The attribute's name is fileAttributeName(decl) ("ensemble_size",
// "stop_max_sifts"), its type follows the kind: flag -> int64 0/1, integer -> int64, real ->
// double, choice -> its name (UTF-8 string), seed -> uint64. docs/hdf5-schema.md lists them per
// method. Readers read them back from the same declarations (readParamAttributes).
//
// Thread rule: call with h5::hdf5Mutex() held, as every HDF5 call.
#pragma once

#include <H5Cpp.h>

#include <optional>
#include <utility>
#include <vector>

#include "engine/io/hdf5_util.h"
#include "engine/method/param_table.h"

namespace modescope::h5 {

void writeParamAttributes(H5::H5Object& object,
                          const std::vector<std::pair<const ParamDecl*, ParamValue>>& values);

template <class P>
void writeParamAttributes(H5::H5Object& object, const ParamTable<P>& table, const P& params) {
  writeParamAttributes(object, table.values(params));
}

// One declared field's attribute, of the type its kind is written as (an integer attribute is
// also taken for a real). Fails through `r` (InvalidInputError naming the file and the
// attribute) when the attribute has another type or, for a choice, a name the declaration does
// not know; a missing attribute is the caller's to handle.
ParamValue readParamAttribute(const Reader& r, const H5::H5Object& object, const ParamDecl& d);
// Fails through `r` naming the file, the attribute and the value when v is outside d's range.
void checkParamAttribute(const Reader& r, const H5::H5Object& object, const ParamDecl& d,
                         const ParamValue& v);

// Every declared field read over `defaults`: an attribute that an older file lacks keeps the
// default, one of the wrong type fails; then every field that applies to the result must be
// inside its declared range (fields that do not apply are ignored by the method, as the engine's
// validation ignores them).
template <class P>
P readParamAttributes(const Reader& r, const H5::H5Object& object, const ParamTable<P>& table,
                      P defaults) {
  // The values as read (before a struct's narrower member type could wrap one), then set.
  std::vector<std::optional<ParamValue>> read;
  for (const auto& f : table.fields()) {
    read.emplace_back();
    if (r.hasAttribute(object, fileAttributeName(f.decl)))
      read.back() = readParamAttribute(r, object, f.decl);
  }
  for (std::size_t i = 0; i < read.size(); ++i)
    if (read[i]) table.fields()[i].set(defaults, *read[i]);
  for (std::size_t i = 0; i < read.size(); ++i) {
    const auto& f = table.fields()[i];
    if (read[i] && f.appliesTo(defaults)) checkParamAttribute(r, object, f.decl, *read[i]);
  }
  return defaults;
}

}  // namespace modescope::h5
