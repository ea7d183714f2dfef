// User spatial-filter matrices: reading and writing the text format, binding names to channels
// (spatial_filter.h).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/montage/channel_names.h"
#include "engine/spatial/spatial_filter.h"

namespace modescope {
namespace {

struct Line {
  int number = 0;  // 1-based line number in the file
  std::vector<std::string> cells;
};

std::vector<std::string> splitCells(const std::string& line, char sep) {
  std::vector<std::string> cells;
  if (sep == ' ') {
    std::istringstream in(line);
    std::string cell;
    while (in >> cell) cells.push_back(cell);
    return cells;
  }
  for (const auto& c : split(line, sep)) cells.push_back(trim(c));
  return cells;
}

bool parseNumber(const std::string& cell, double& value) {
  std::string s = cell;
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, value);
  return !s.empty() && r.ec == std::errc() && r.ptr == end;
}

std::string where(const Line& line, std::size_t column) {
  return "line " + std::to_string(line.number) + ", column " + std::to_string(column + 1);
}

}  // namespace

SpatialFilter loadSpatialFilter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InvalidInputError(path, "", "a file that cannot be opened", "a readable text file",
                            "check the path and permissions");
  }
  // Separator from the first content line, so a whole file is split one way.
  std::vector<std::string> raw;
  std::vector<int> numbers;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 BOM
    const std::string t = trim(text);
    if (t.empty() || t[0] == '#') continue;
    raw.push_back(text);
    numbers.push_back(number);
  }
  if (raw.empty()) {
    throw InvalidInputError(path, "", "no matrix rows (empty file or only comments)",
                            "a matrix: one line per output channel");
  }
  const char sep = raw[0].find('\t') != std::string::npos  ? '\t'
                   : raw[0].find(',') != std::string::npos ? ','
                                                           : ' ';
  std::vector<Line> lines;
  for (std::size_t i = 0; i < raw.size(); ++i)
    lines.push_back({numbers[i], splitCells(raw[i], sep)});

  const Line& first = lines[0];
  bool named = false;
  for (const auto& cell : first.cells) {
    double v;
    if (!parseNumber(cell, v)) named = true;
  }

  SpatialFilter f;
  std::size_t firstRow = 0;
  std::size_t nameColumns = 0;  // leading cells of a data row that are not weights
  if (named) {
    if (lines.size() < 2) {
      throw InvalidInputError(path, "line " + std::to_string(first.number),
                              "a header of input names and no weight rows",
                              "at least one line: output name then one weight per input");
    }
    const std::size_t h = first.cells.size();
    const std::size_t r = lines[1].cells.size();
    std::size_t from;
    if (r == h) {
      from = 1;  // corner cell present ("output", or empty between separators)
    } else if (r == h + 1) {
      from = 0;
    } else {
      throw InvalidInputError(path, "line " + std::to_string(lines[1].number),
                              std::to_string(r) + " cells after a header of " + std::to_string(h),
                              std::to_string(h) + " cells (header with a corner cell) or " +
                                  std::to_string(h + 1) + " (header of input names only)",
                              "give every row its output name and one weight per input");
    }
    std::map<std::string, std::size_t> seen;
    for (std::size_t c = from; c < h; ++c) {
      const std::string& name = first.cells[c];
      if (name.empty()) {
        throw InvalidInputError(path, where(first, c), "an empty input channel name",
                                "a channel name in every header cell after the corner");
      }
      if (auto [it, fresh] = seen.emplace(toLower(name), c); !fresh) {
        throw InvalidInputError(
            path, where(first, c), "input '" + name + "' a second time",
            "each input channel once (first at column " + std::to_string(it->second + 1) + ")");
      }
      f.inputNames.push_back(name);
    }
    firstRow = 1;
    nameColumns = 1;
  } else {
    f.inputNames.assign(first.cells.size(), "");
  }

  const std::size_t cin = f.inputNames.size();
  std::map<std::string, int> outputsSeen;
  for (std::size_t i = firstRow; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (line.cells.size() != cin + nameColumns) {
      throw InvalidInputError(
          path, "line " + std::to_string(line.number), std::to_string(line.cells.size()) + " cells",
          std::to_string(cin + nameColumns) + " cells (" +
              (named ? "an output name and " : std::string()) + std::to_string(cin) + " weights, " +
              "one per input" + (named ? " in the header" : " as on the first row") + ")");
    }
    std::string outName = named ? line.cells[0] : "out" + std::to_string(i - firstRow + 1);
    if (outName.empty()) {
      throw InvalidInputError(path, where(line, 0), "an empty output name",
                              "the output channel's name in the first column");
    }
    if (auto [it, fresh] = outputsSeen.emplace(toLower(outName), line.number); !fresh) {
      throw InvalidInputError(
          path, where(line, 0), "output '" + outName + "' a second time",
          "each output name once (first on line " + std::to_string(it->second) + ")");
    }
    for (std::size_t c = 0; c < cin; ++c) {
      const std::string& cell = line.cells[c + nameColumns];
      double v = 0.0;
      if (!parseNumber(cell, v) || !std::isfinite(v)) {
        throw InvalidInputError(
            path, where(line, c + nameColumns), "'" + cell + "'",
            "a finite number (the weight of input " +
                (f.inputNames[c].empty() ? std::to_string(c + 1) : "'" + f.inputNames[c] + "'") +
                " in output '" + outName + "')");
      }
      f.matrix.push_back(v);
    }
    f.outputNames.push_back(outName);
  }
  f.description = "user matrix " + std::to_string(f.outputCount()) + " x " + std::to_string(cin) +
                  " from '" + path + "'";
  return f;
}

void saveSpatialFilter(const SpatialFilter& filter, const std::string& path) {
  if (filter.matrix.size() != filter.inputCount() * filter.outputCount()) {
    throw InvalidParameterError(
        "spatial filter matrix", std::to_string(filter.matrix.size()) + " weights",
        std::to_string(filter.outputCount()) + " x " + std::to_string(filter.inputCount()));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw OutputError(path, "cannot open the file for writing");
  out << "# " << filter.description << "\noutput";
  for (std::size_t c = 0; c < filter.inputCount(); ++c) {
    out << '\t'
        << (filter.inputNames[c].empty() ? "in" + std::to_string(c + 1) : filter.inputNames[c]);
  }
  out << '\n';
  char buf[32];
  for (std::size_t r = 0; r < filter.outputCount(); ++r) {
    out << filter.outputNames[r];
    for (std::size_t c = 0; c < filter.inputCount(); ++c) {
      std::snprintf(buf, sizeof buf, "%.17g", filter.weight(r, c));
      out << '\t' << buf;
    }
    out << '\n';
  }
  out.flush();
  if (!out) throw OutputError(path, "writing failed (disk full or permission)");
}

void bindSpatialFilter(SpatialFilter& filter, const std::vector<ChannelInfo>& channels,
                       const std::vector<std::size_t>& selection) {
  const std::size_t cin = filter.inputCount();
  bool unnamed = true;
  for (const auto& n : filter.inputNames) unnamed = unnamed && n.empty();
  std::vector<std::size_t> bound;
  if (unnamed) {
    if (selection.size() != cin) {
      throw InvalidInputError(
          "spatial filter", "inputs", std::to_string(selection.size()) + " selected channels",
          std::to_string(cin) + " (the plain matrix's columns map to the selection in order)",
          "select exactly as many channels as the matrix has columns, or "
          "add a header row of input channel names");
    }
    for (std::size_t i : selection) {
      if (i >= channels.size()) {
        throw InvalidParameterError("spatial filter selection", "index " + std::to_string(i),
                                    "an index below " + std::to_string(channels.size()));
      }
    }
    bound = selection;
  } else {
    std::vector<std::string> missing;
    for (const auto& name : filter.inputNames) {
      const std::string wanted = toLower(name);
      const std::string wantedNorm = toLower(normaliseChannelLabel(name).name);
      std::size_t hit = channels.size();
      for (std::size_t i = 0; i < channels.size() && hit == channels.size(); ++i) {
        if (toLower(channels[i].name) == wanted || toLower(trim(channels[i].label)) == wanted)
          hit = i;
      }
      for (std::size_t i = 0; i < channels.size() && hit == channels.size(); ++i) {
        if (toLower(channels[i].name) == wantedNorm) hit = i;
      }
      if (hit == channels.size()) {
        missing.push_back(name);
      } else {
        bound.push_back(hit);
      }
    }
    if (!missing.empty()) {
      std::string list;
      for (std::size_t m = 0; m < missing.size(); ++m) list += (m ? ", " : "") + missing[m];
      throw InvalidInputError("spatial filter", "input channels",
                              "no channel named " + list + " in the recording",
                              "every input name of the matrix to match a channel name or label",
                              "rename the header cells to the recording's channel names");
    }
  }
  filter.inputChannels = std::move(bound);
}

}  // namespace modescope
