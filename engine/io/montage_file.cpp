#include "engine/io/montage_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/io/atomic_file.h"

namespace modescope {

DerivationMontage readMontageFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InvalidInputError(path, "file", std::string("cannot open: ") + std::strerror(errno),
                            "a readable montage file", "Check the path and the permissions");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseMontageText(text.str(), path);
}

void writeMontageFile(const DerivationMontage& montage, const std::string& path) {
  writeTextAtomically(path, formatMontageText(montage), "the montage");
}

}  // namespace modescope
