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

ParamValue readParamAttribute(const Reader& r, const H5::H5Object& object, const ParamDecl& d) {
  const std::string name = fileAttributeName(d);
  switch (d.kind) {
    case ParamKind::Flag: {
      const int64_t v = r.intAttribute(object, name);
      if (v != 0 && v != 1)
        r.fail(childPath(object, "@" + name), std::to_string(v), "0 or 1 (" + d.label + ")");
      return v == 1;
    }
    case ParamKind::Integer:
      return r.intAttribute(object, name);
    case ParamKind::Real:
      return r.doubleAttribute(object, name);
    case ParamKind::Seed:
      return r.unsignedAttribute(object, name);
    case ParamKind::Choice: {
      const std::string v = r.stringAttribute(object, name);
      const ParamChoice* c = findChoice(d, v);
      if (!c) r.fail(childPath(object, "@" + name), "'" + v + "'", expectedText(d));
      return c->name;
    }
  }
  return {};
}

void checkParamAttribute(const Reader& r, const H5::H5Object& object, const ParamDecl& d,
                         const ParamValue& v) {
  if (acceptsValue(d, v)) return;
  r.fail(childPath(object, "@" + fileAttributeName(d)), describeValue(d, v),
         expectedText(d) + " (" + d.label + ")",
         "The file was changed outside ModeScope or is damaged; write it again");
}

}  // namespace modescope::h5
