// Shared by the CLI end-to-end tests (cli_test.cpp, cli_emd_test.cpp, cli_ica_test.cpp): a
// program run as a child process with its stdout and stderr captured, so a test can check what
// it printed, its exit code, and how it reacts to a signal, and a fixture giving each test its
// own folder. Header-only; every definition lives in
// modescope::cli_support, so the including tests' anonymous namespaces do not collide.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace modescope::cli_support {

// The modescope-cli binary under test (defined for the integration tests by CMake).
inline const std::string kCli = MODESCOPE_CLI;

struct RunResult {
  int exitCode = -1;  // the exit status, or 128 + signal when killed by one
  std::string out, err;
};

// `program` (modescope-cli unless named) run with `args`, stdin from /dev/null. The destructor
// kills a child that is still running, so a failed assertion never leaves one behind.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args, const std::string& program = kCli) {
    int outPipe[2], errPipe[2];
    if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> argv = {program};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, program.c_str(), &actions, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(outPipe[1]);
    close(errPipe[1]);
    outFd_ = outPipe[0];
    errFd_ = errPipe[0];
    if (rc != 0) throw std::runtime_error("could not start " + program);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (outFd_ >= 0) close(outFd_);
    if (errFd_ >= 0) close(errFd_);
  }

  // Reads what is available for up to `timeout`; returns false once both pipes are closed.
  bool pump(std::chrono::milliseconds timeout) {
    if (outFd_ < 0 && errFd_ < 0) return false;
    pollfd fds[2] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(timeout.count())) <= 0) return true;
    auto drain = [](int& fd, short revents, std::string& into) {
      if (fd < 0 || !(revents & (POLLIN | POLLHUP | POLLERR))) return;
      char buf[65536];
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) {
        into.append(buf, static_cast<std::size_t>(n));
      } else {
        close(fd);
        fd = -1;
      }
    };
    drain(outFd_, fds[0].revents, result_.out);
    drain(errFd_, fds[1].revents, result_.err);
    return outFd_ >= 0 || errFd_ >= 0;
  }

  // Waits for the end (killing the child after `limit`) and returns what it printed.
  RunResult finish(std::chrono::seconds limit = std::chrono::seconds(300)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (pump(std::chrono::milliseconds(100))) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        result_.err += "\n[test: killed after the time limit]";
      }
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    result_.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result_;
  }

  // Reads until stderr holds `marker` (a progress line such as "emd:") or `limit` passes;
  // returns whether it came.
  bool waitForStderr(const std::string& marker,
                     std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (result_.err.find(marker) == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      if (!pump(std::chrono::milliseconds(50))) break;
    }
    return result_.err.find(marker) != std::string::npos;
  }

  // Sends SIGINT and waits up to a minute for the end; `stopSeconds` (when given) receives
  // how long the program took to stop after the signal.
  RunResult interrupt(double* stopSeconds = nullptr) {
    signal(SIGINT);
    const auto t0 = std::chrono::steady_clock::now();
    RunResult r = finish(std::chrono::seconds(60));
    if (stopSeconds) {
      *stopSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return r;
  }

  void signal(int sig) { kill(pid_, sig); }
  const std::string& stderrSoFar() const { return result_.err; }

 private:
  pid_t pid_ = -1;
  int outFd_ = -1, errFd_ = -1;
  RunResult result_;
};

// A shell command's stdout (popen), its wait status in *status (-1 when it could not start):
// for the Python reference scripts the agreement tests run.
inline std::string runShellCapture(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = ::pclose(p);
  return out;
}

// modescope-cli run to the end with `args`.
inline RunResult runCli(const std::vector<std::string>& args) { return Child(args).finish(); }

// Exit code and the start of both streams, for an assertion's message.
inline std::string describe(const RunResult& r) {
  return "exit " + std::to_string(r.exitCode) + "\n--- stdout ---\n" + r.out.substr(0, 4000) +
         "\n--- stderr ---\n" + r.err.substr(0, 4000);
}

// Each test gets a fresh folder /tmp/<prefix>-XXXXXX for its inputs and outputs, removed
// afterwards whatever it holds.
class TempDirTest : public ::testing::Test {
 protected:
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    std::string tmpl = "/tmp/" + prefix_ + "-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const {
    return (std::filesystem::path(dir_) / name).string();
  }
  // The folder's entries, sorted by name.
  std::vector<std::string> listDir() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string prefix_;
  std::string dir_;
};

}  // namespace modescope::cli_support
