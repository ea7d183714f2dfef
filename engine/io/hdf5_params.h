// A method's parameters as attributes of a result file's group, written from its declarations
// (engine/method/param_table.h): one attribute per declared field, applicable or not, so the whole
// struct can be read back. The attribute's name is fileAttributeName(decl) ("ensemble_size",
// "stop_max_sifts"), its type follows the kind: flag -> int64 0/1, integer -> int64, real ->
// double, choice -> its name (UTF-8 string), seed -> uint64. docs/hdf5-schema.md lists them per
// method.
//
// Thread rule: call with h5::hdf5Mutex() held, as every HDF5 call.
#pragma once

#include <H5Cpp.h>

#include <utility>
#include <vector>

#include "engine/method/param_table.h"

namespace modescope::h5 {

void writeParamAttributes(H5::H5Object& object,
                          const std::vector<std::pair<const ParamDecl*, ParamValue>>& values);

template <class P>
void writeParamAttributes(H5::H5Object& object, const ParamTable<P>& table, const P& params) {
  writeParamAttributes(object, table.values(params));
}

}  // namespace modescope::h5
