#include "engine/io/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

namespace modescope {
namespace {

constexpr std::size_t kStderrKeep = 8 * 1024;  // the tail is what explains a failure

void appendTail(std::string& tail, const char* data, std::size_t n) {
  tail.append(data, n);
  if (tail.size() > kStderrKeep) tail.erase(0, tail.size() - kStderrKeep);
}

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

ChildResult runChildProcess(const std::string& executable, const std::vector<std::string>& args,
                            double timeoutSeconds) {
  ChildResult result;
  std::vector<std::string> argvStore;
  argvStore.push_back(executable);
  argvStore.insert(argvStore.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argvStore) argv.push_back(a.data());
  argv.push_back(nullptr);
  const bool searchPath = executable.find('/') == std::string::npos;

  int errPipe[2] = {-1, -1};  // the child's stderr
  if (::pipe2(errPipe, O_CLOEXEC) != 0) {
    result.stderrText = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  // posix_spawn (clone with a shared address space in glibc) rather than fork: the GUI process
  // may be large, and nothing runs in the child between the spawn and exec. The child gets
  // /dev/null for stdin/stdout, the pipe as stderr, its own process group (so a timeout kills
  // anything it starts too), default signal handlers and an empty signal mask.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = searchPath ? ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ)
                            : ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  closeFd(errPipe[1]);
  if (rc != 0) {
    closeFd(errPipe[0]);
    result.outcome = ChildResult::Outcome::CouldNotStart;
    result.stderrText = "cannot run '" + executable + "': " + std::strerror(rc);
    return result;
  }

  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<long long>(timeoutSeconds * 1000.0));
  bool timedOut = false;
  char buf[4096];
  // Drain stderr until it closes or the time is up.
  while (errPipe[0] >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{errPipe[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // re-check the deadline
    const ssize_t got = ::read(errPipe[0], buf, sizeof buf);
    if (got > 0) {
      appendTail(result.stderrText, buf, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      closeFd(errPipe[0]);
    }
  }
  // stderr closed: wait for the exit, still within the deadline.
  int status = 0;
  bool reaped = false;
  while (!timedOut) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      reaped = true;
      break;
    }
    if (w < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) {
      timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (timedOut) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  if (!reaped) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  closeFd(errPipe[0]);

  if (timedOut) {
    result.outcome = ChildResult::Outcome::TimedOut;
  } else if (WIFSIGNALED(status)) {
    result.outcome = ChildResult::Outcome::Crashed;
    result.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    result.outcome = ChildResult::Outcome::Exited;
    result.exitCode = WEXITSTATUS(status);
  }
  return result;
}

std::string currentExecutableDir() {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return {};
  buf.resize(static_cast<std::size_t>(n));
  const auto slash = buf.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? "/" : buf.substr(0, slash);
}

}  // namespace modescope
