#include "engine/io/hdf5_params.h"

#include <cstdint>
#include <string>
#include <type_traits>

#include "engine/io/hdf5_util.h"

namespace modescope::h5 {

void writeParamAttributes(H5::H5Object& object,
                          const std::vector<std::pair<const ParamDecl*, ParamValue>>& values) {
  for (const auto& [decl, value] : values) {
    const std::string name = fileAttributeName(*decl);
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>)
            setAttribute(object, name, static_cast<int64_t>(v ? 1 : 0));
          else if constexpr (std::is_same_v<T, uint64_t>)
            setUnsignedAttribute(object, name, v);
          else
            setAttribute(object, name, v);
        },
        value);
  }
}

}  // namespace modescope::h5
