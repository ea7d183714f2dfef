#include "widgets/annotation_colours.h"

#include <functional>
#include <map>

namespace modescope {
namespace {

// Tableau 10 (Tableau's default categorical palette).
constexpr QRgb kPalette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                             0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

struct Table {
  std::map<std::string, QColor> colours;
  int next = 0;
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

QColor annotationColour(const std::string& text) {
  const auto it = table().colours.find(text);
  if (it != table().colours.end()) return it->second;
  return QColor(kPalette[std::hash<std::string>{}(text) % kPaletteSize]);
}

void assignAnnotationColours(const std::vector<std::string>& types) {
  Table& t = table();
  for (const std::string& type : types)
    if (!t.colours.count(type)) t.colours[type] = QColor(kPalette[t.next++ % kPaletteSize]);
}

void setAnnotationColour(const std::string& text, const QColor& colour) {
  table().colours[text] = colour;
}

}  // namespace modescope
