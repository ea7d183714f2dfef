#include "engine/core/error.h"

namespace modescope {
namespace {

std::string inputMessage(const std::string& path, const std::string& field,
                         const std::string& found, const std::string& expected,
                         const std::string& remedy) {
  std::string m = "'" + path + "'";
  if (!field.empty()) m += ", " + field;
  m += ": found " + (found.empty() ? std::string("nothing") : found);
  if (!expected.empty()) m += ", expected " + expected;
  if (!remedy.empty()) m += ". " + remedy;
  return m;
}

std::string parameterMessage(const std::string& parameter, const std::string& found,
                             const std::string& expected, const std::string& remedy) {
  std::string m = "parameter '" + parameter + "': got " + found + ", expected " + expected;
  if (!remedy.empty()) m += ". " + remedy;
  return m;
}

}  // namespace

InvalidInputError::InvalidInputError(std::string path, std::string field, std::string found,
                                     std::string expected, std::string remedy)
    : Error(inputMessage(path, field, found, expected, remedy)),
      path_(std::move(path)),
      field_(std::move(field)),
      found_(std::move(found)),
      expected_(std::move(expected)) {}

InvalidParameterError::InvalidParameterError(std::string parameter, std::string found,
                                             std::string expected, std::string remedy)
    : Error(parameterMessage(parameter, found, expected, remedy)),
      parameter_(std::move(parameter)),
      found_(std::move(found)),
      expected_(std::move(expected)),
      remedy_(std::move(remedy)) {}

OutputError::OutputError(std::string path, std::string what)
    : Error("could not write '" + path + "': " + what) {}

}  // namespace modescope
