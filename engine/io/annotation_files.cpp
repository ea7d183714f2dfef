#include "engine/io/annotation_files.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/io/atomic_file.h"

namespace modescope {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && lower(s.substr(s.size() - suffix.size())) == suffix;
}

// Records of a CSV (RFC 4180: quoted fields may hold separators, quotes and line breaks) or of a
// TSV (no quoting in BIDS; a tab never appears inside a field). Each record with its line number.
std::vector<std::pair<int, std::vector<std::string>>> splitRecords(const std::string& text,
                                                                   char sep) {
  std::vector<std::pair<int, std::vector<std::string>>> out;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, any = false;
  int line = 1, recordLine = 1;
  auto endRecord = [&]() {
    fields.push_back(field);
    field.clear();
    const bool blank = fields.size() == 1 && fields[0].empty() && !any;
    if (!blank) out.emplace_back(recordLine, fields);
    fields.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (sep == ',' && c == '"' && field.empty()) {
      quoted = true;
      any = true;
    } else if (c == sep) {
      fields.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\r') {
      continue;
    } else if (c == '\n') {
      endRecord();
      ++line;
      recordLine = line;
    } else {
      field += c;
    }
  }
  if (!field.empty() || !fields.empty() || any) endRecord();
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

double parseSeconds(const std::string& raw, const std::string& source, int line,
                    const std::string& column, bool naIsZero) {
  const std::string v = trim(raw);
  if (naIsZero && (v == "n/a" || v.empty())) return 0.0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x) || x < 0)
    throw InvalidInputError(source, "line " + std::to_string(line) + ", column '" + column + "'",
                            "'" + raw + "'",
                            "a number of seconds >= 0" + std::string(naIsZero ? " (or n/a)" : ""),
                            "correct the value or remove the line");
  return x;
}

// Seconds to 100 ns over 11 days (EDF+ keeps 100 ns): 12 significant digits, no trailing zeros.
std::string seconds(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

std::string quoteCsv(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// BIDS forbids tabs and line breaks inside a value: they become spaces.
std::string cleanTsv(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s.empty() ? "n/a" : s;
}

}  // namespace

AnnotationTableFormat annotationFormatForPath(const std::string& path) {
  if (endsWith(path, ".tsv")) return AnnotationTableFormat::BidsEvents;
  if (endsWith(path, ".csv")) return AnnotationTableFormat::Csv;
  throw InvalidParameterError("annotation file", "'" + path + "'",
                              "a name ending in .csv (onset,duration,description) or .tsv (BIDS "
                              "events.tsv)",
                              "rename the file or choose one of these formats");
}

std::string formatAnnotationTable(const std::vector<Annotation>& annotations,
                                  AnnotationTableFormat format, double sampleRate) {
  std::ostringstream out;
  if (format == AnnotationTableFormat::Csv) {
    out << "onset,duration,description\n";
    for (const Annotation& a : annotations)
      out << seconds(a.onset) << ',' << seconds(a.duration) << ',' << quoteCsv(a.text) << '\n';
  } else {
    out << "onset\tduration\ttrial_type" << (sampleRate > 0 ? "\tsample" : "") << '\n';
    for (const Annotation& a : annotations) {
      out << seconds(a.onset) << '\t' << seconds(a.duration) << '\t' << cleanTsv(a.text);
      if (sampleRate > 0) out << '\t' << std::llround(a.onset * sampleRate);
      out << '\n';
    }
  }
  return out.str();
}

std::vector<AnnotationRow> parseAnnotationRows(const std::string& text,
                                               AnnotationTableFormat format,
                                               const std::string& source) {
  const bool bids = format == AnnotationTableFormat::BidsEvents;
  std::string body = text;
  if (body.rfind("\xEF\xBB\xBF", 0) == 0) body.erase(0, 3);  // a UTF-8 byte-order mark
  const auto records = splitRecords(body, bids ? '\t' : ',');
  if (records.empty())
    throw InvalidInputError(source, "header", "an empty file",
                            bids ? "a header 'onset<TAB>duration[<TAB>trial_type]'"
                                 : "a header 'onset,duration,description'");
  const std::vector<std::string>& header = records.front().second;
  int onsetCol = -1, durationCol = -1, textCol = -1;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string h = lower(trim(header[i]));
    if (h == "onset") onsetCol = static_cast<int>(i);
    if (h == "duration") durationCol = static_cast<int>(i);
    const bool isText = bids ? (h == "trial_type" || (textCol < 0 && h == "value"))
                             : (h == "description" || h == "text" || h == "annotation" ||
                                h == "label" || h == "trial_type");
    if (isText && (textCol < 0 || h == "trial_type" || h == "description"))
      textCol = static_cast<int>(i);
  }
  if (onsetCol < 0 || durationCol < 0)
    throw InvalidInputError(source, "line 1 (header)", "'" + records.front().second[0] + "...'",
                            bids ? "columns 'onset' and 'duration' (BIDS events.tsv)"
                                 : "columns 'onset', 'duration' and 'description'",
                            "add the header line");
  std::vector<AnnotationRow> out;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& [line, fields] = records[r];
    if (fields.size() != header.size())
      throw InvalidInputError(
          source, "line " + std::to_string(line), std::to_string(fields.size()) + " fields",
          std::to_string(header.size()) + " fields, as the header has",
          bids ? "separate the values by single tabs" : "quote descriptions that contain commas");
    Annotation a;
    a.onset = parseSeconds(fields[onsetCol], source, line, "onset", false);
    a.duration = parseSeconds(fields[durationCol], source, line, "duration", bids);
    if (textCol >= 0) a.text = bids && fields[textCol] == "n/a" ? "" : fields[textCol];
    out.push_back({std::move(a), line});
  }
  return out;
}

std::vector<Annotation> parseAnnotationTable(const std::string& text, AnnotationTableFormat format,
                                             const std::string& source) {
  std::vector<Annotation> out;
  for (AnnotationRow& row : parseAnnotationRows(text, format, source))
    out.push_back(std::move(row.annotation));
  std::stable_sort(out.begin(), out.end(),
                   [](const Annotation& x, const Annotation& y) { return x.onset < y.onset; });
  return out;
}

void writeAnnotationFile(const std::string& path, const std::vector<Annotation>& annotations,
                         double sampleRate) {
  const AnnotationTableFormat format = annotationFormatForPath(path);
  writeTextAtomically(path, formatAnnotationTable(annotations, format, sampleRate),
                      "the annotations");
}

namespace {

std::string readTableText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InvalidInputError(path, "file", "not readable", "an existing, readable file",
                            "check the path");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<Annotation> readAnnotationFile(const std::string& path) {
  const AnnotationTableFormat format = annotationFormatForPath(path);
  return parseAnnotationTable(readTableText(path), format, path);
}

std::vector<AnnotationRow> readAnnotationFileRows(const std::string& path) {
  const AnnotationTableFormat format = annotationFormatForPath(path);
  return parseAnnotationRows(readTableText(path), format, path);
}

std::vector<Annotation> mergeAnnotations(std::vector<Annotation> base,
                                         const std::vector<Annotation>& added) {
  base.insert(base.end(), added.begin(), added.end());
  std::stable_sort(base.begin(), base.end(),
                   [](const Annotation& x, const Annotation& y) { return x.onset < y.onset; });
  return base;
}

}  // namespace modescope
