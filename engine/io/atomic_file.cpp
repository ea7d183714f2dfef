#include "engine/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "engine/core/error.h"

namespace modescope {
namespace {

std::string directoryOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string baseNameOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string errnoText(int e) { return std::strerror(e); }

// Makes the rename itself durable: without it a crash right after commit() can lose the entry.
void syncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: some file systems refuse to open directories
  ::fsync(fd);
  ::close(fd);
}

std::atomic<unsigned> gCounter{0};

}  // namespace

AtomicOutput::AtomicOutput(std::string finalPath) : final_(std::move(finalPath)) {
  const std::string name = baseNameOf(final_);
  if (final_.empty() || name.empty()) {
    throw OutputError(final_, "the output path names no file; give a file name such as out.h5");
  }
  const std::string dir = directoryOf(final_);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    throw OutputError(final_, "the folder '" + dir + "' cannot be used (" + errnoText(errno) +
                                  "); create it first or choose another folder");
  }
  if (!S_ISDIR(st.st_mode)) {
    throw OutputError(final_,
                      "'" + dir + "' is not a folder; choose an output path inside a folder");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw OutputError(final_, "the folder '" + dir + "' is not writable (" + errnoText(errno) +
                                  "); choose a folder you may write to");
  }
  struct stat target {};
  if (::stat(final_.c_str(), &target) == 0 && S_ISDIR(target.st_mode)) {
    throw OutputError(final_, "a folder of that name exists; choose a file name");
  }
  // Same folder as the target, so the final rename never crosses file systems; hidden and
  // marked "partial" so that nobody mistakes it for a finished output.
  const std::string prefix =
      final_.find('/') == std::string::npos ? std::string() : (dir == "/" ? dir : dir + "/");
  tmp_ = prefix + "." + name + ".partial-" + std::to_string(::getpid()) + "-" +
         std::to_string(gCounter++);
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) ::unlink(tmp_.c_str());  // ENOENT (nothing was written yet) is fine
}

void AtomicOutput::commit() {
  if (committed_) return;
  const int fd = ::open(tmp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw OutputError(final_, "the temporary file '" + tmp_ + "' is missing (" + errnoText(errno) +
                                  "); nothing was written");
  }
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    throw OutputError(
        final_, "could not flush the data to disk (" + errnoText(e) + "); check free disk space");
  }
  ::close(fd);
  if (::rename(tmp_.c_str(), final_.c_str()) != 0) {
    throw OutputError(final_,
                      "could not move the finished file into place (" + errnoText(errno) + ")");
  }
  committed_ = true;
  syncDirectory(directoryOf(final_));
}

void writeTextAtomically(const std::string& path, const std::string& text,
                         const std::string& what) {
  AtomicOutput out(path);
  {
    std::ofstream f(out.temporaryPath(), std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f) {
      const int e = errno;
      throw OutputError(path, what + " could not be written (" +
                                  (e != 0 ? errnoText(e) : std::string("write failed")) +
                                  "); check free disk space and permissions");
    }
  }
  out.commit();
}

}  // namespace modescope
