#include "app/core/study_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "engine/core/error.h"
#include "engine/io/child_process.h"

extern char** environ;

namespace modescope {

pid_t spawnLogged(const std::vector<std::string>& argvIn, const std::vector<std::string>& extraEnv,
                  const std::string& logPath, const std::string& stdoutPath) {
  std::vector<std::string> argvStore = argvIn;
  std::vector<char*> argv;
  for (auto& a : argvStore) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::vector<std::string> envStore;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& x : extraEnv) replaced |= x.substr(0, x.find('=')) == name;
    if (!replaced) envStore.push_back(entry);
  }
  envStore.insert(envStore.end(), extraEnv.begin(), extraEnv.end());
  std::vector<char*> envp;
  for (auto& e : envStore) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const std::string outFile = stdoutPath.empty() ? "/dev/null" : stdoutPath;
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outFile.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string log = logPath.empty() ? "/dev/null" : logPath;
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    throw InvalidInputError(argvIn.front(), "program", std::strerror(rc),
                            "a program this process can start",
                            "Check the installation of modescope-cli");
  }
  return pid;
}

int exitCodeOf(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 1;
}

std::string describeWaitStatus(int st) {
  if (WIFEXITED(st)) return "exit code " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) {
    return "killed by signal " + std::to_string(WTERMSIG(st)) + " (" + strsignal(WTERMSIG(st)) +
           ")";
  }
  return "ended with wait status " + std::to_string(st);
}

std::string selfExecutable() { return currentExecutableDir() + "/modescope-cli"; }

std::string findOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t from = 0;
  while (from <= dirs.size()) {
    std::size_t colon = dirs.find(':', from);
    if (colon == std::string::npos) colon = dirs.size();
    const std::string dir = dirs.substr(from, colon - from);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    from = colon + 1;
  }
  return {};
}

int runCaptured(const std::vector<std::string>& argvIn, std::string* out, std::string* err) {
  std::vector<std::string> argv = argvIn;
  if (argv.front().find('/') == std::string::npos) {
    const std::string full = findOnPath(argv.front());
    if (full.empty()) return -1;
    argv.front() = full;
  }
  char outName[] = "/tmp/modescope-study-outXXXXXX";
  char errName[] = "/tmp/modescope-study-errXXXXXX";
  const int outFd = ::mkstemp(outName);
  const int errFd = ::mkstemp(errName);
  if (outFd >= 0) ::close(outFd);
  if (errFd >= 0) ::close(errFd);
  int status = -1;
  try {
    const pid_t pid = spawnLogged(argv, {}, errName, outName);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  } catch (const Error&) {
    status = -1;
  }
  if (out) *out = fileTail(outName, 1 << 20);
  if (err) *err = fileTail(errName, 1 << 16);
  ::unlink(outName);
  ::unlink(errName);
  return status;
}

std::string fileTail(const std::string& path, std::size_t maxBytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(maxBytes)
                                  ? size - static_cast<std::streamoff>(maxBytes)
                                  : 0;
  in.seekg(from);
  std::string s(static_cast<std::size_t>(size - from), '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

}  // namespace modescope
