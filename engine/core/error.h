// Error types: one exception type per outcome the user must act on differently.
// Messages name the file field or parameter, the value found, the value expected and a remedy
// (docs/cli.md, "Exit codes"). Exit codes follow the CLI contract: 1 bad usage or parameter,
// 2 unreadable or invalid input, 3 out of memory or device error, 130 cancelled.
#pragma once

#include <stdexcept>
#include <string>

namespace modescope {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // Process exit code the CLI uses for this outcome.
  virtual int exitCode() const noexcept { return 1; }
};

// A file that cannot be read or does not follow its format. `path` and `field` say where.
class InvalidInputError : public Error {
 public:
  InvalidInputError(std::string path, std::string field, std::string found, std::string expected,
                    std::string remedy = {});
  const std::string& path() const noexcept { return path_; }
  const std::string& field() const noexcept { return field_; }
  const std::string& found() const noexcept { return found_; }
  const std::string& expected() const noexcept { return expected_; }
  int exitCode() const noexcept override { return 2; }

 private:
  std::string path_, field_, found_, expected_;
};

// A parameter outside its valid range, or a selection a method cannot use.
class InvalidParameterError : public Error {
 public:
  InvalidParameterError(std::string parameter, std::string found, std::string expected,
                        std::string remedy = {});
  const std::string& parameter() const noexcept { return parameter_; }
  const std::string& found() const noexcept { return found_; }
  const std::string& expected() const noexcept { return expected_; }
  const std::string& remedy() const noexcept { return remedy_; }
  int exitCode() const noexcept override { return 1; }

 private:
  std::string parameter_, found_, expected_, remedy_;
};

// Writing an output failed (disk full, permission). Nothing that looks complete is left behind.
class OutputError : public Error {
 public:
  OutputError(std::string path, std::string what);
  int exitCode() const noexcept override { return 2; }
};

class OutOfDeviceMemoryError : public Error {
 public:
  using Error::Error;
  int exitCode() const noexcept override { return 3; }
};

class DeviceError : public Error {
 public:
  using Error::Error;
  int exitCode() const noexcept override { return 3; }
};

// Thrown by JobContext::checkpoint() after a stop request; RAII frees everything on the way out.
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled by the user") {}
  int exitCode() const noexcept override { return 130; }
};

}  // namespace modescope
