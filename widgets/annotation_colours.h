// One colour per event type (annotation text), shared by the signal browser's markers and the
// event type list, so "T1" is the same colour everywhere. Colours are handed out in the order the
// types are first seen (assignAnnotationColours), from a qualitative palette (Tableau 10, chosen
// to stay apart for the colour-blind), and can be changed by the user (setAnnotationColour).
//
// Thread rules: GUI thread only (a process-wide table).
#pragma once

#include <QColor>
#include <string>
#include <vector>

namespace modescope {

// The colour of `text`: the one assigned or set, else one derived from the text (stable).
QColor annotationColour(const std::string& text);
// Gives each type without a colour the next free palette colour, in this order.
void assignAnnotationColours(const std::vector<std::string>& types);
void setAnnotationColour(const std::string& text, const QColor& colour);

}  // namespace modescope
