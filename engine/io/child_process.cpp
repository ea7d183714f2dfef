#include "engine/io/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
  // Everything the child needs is prepared before fork: after fork in a multi-threaded process
  // only async-signal-safe calls are allowed.
  std::vector<std::string> argvStore;
  argvStore.push_back(executable);
  argvStore.insert(argvStore.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argvStore) argv.push_back(a.data());
  argv.push_back(nullptr);
  const bool searchPath = executable.find('/') == std::string::npos;

  int errPipe[2] = {-1, -1};   // the child's stderr
  int execPipe[2] = {-1, -1};  // carries errno if exec fails; closes on successful exec
  if (::pipe2(errPipe, O_CLOEXEC) != 0) {
    result.stderrText = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  if (::pipe2(execPipe, O_CLOEXEC) != 0) {
    result.stderrText = std::string("pipe: ") + std::strerror(errno);
    closeFd(errPipe[0]);
    closeFd(errPipe[1]);
    return result;
  }
  const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);

  const pid_t pid = ::fork();
  if (pid < 0) {
    result.stderrText = std::string("fork: ") + std::strerror(errno);
    closeFd(errPipe[0]);
    closeFd(errPipe[1]);
    closeFd(execPipe[0]);
    closeFd(execPipe[1]);
    if (devNull >= 0) ::close(devNull);
    return result;
  }
  if (pid == 0) {
    // Child: own process group, so a timeout kills anything it starts too.
    ::setpgid(0, 0);
    if (devNull >= 0) {
      ::dup2(devNull, STDIN_FILENO);
      ::dup2(devNull, STDOUT_FILENO);
    }
    ::dup2(errPipe[1], STDERR_FILENO);
    ::signal(SIGPIPE, SIG_DFL);
    if (searchPath) {
      ::execvp(argv[0], argv.data());
    } else {
      ::execv(argv[0], argv.data());
    }
    const int e = errno;
    (void)!::write(execPipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so there is no race with the kill below
  closeFd(errPipe[1]);
  closeFd(execPipe[1]);
  if (devNull >= 0) ::close(devNull);

  int execErrno = 0;
  ssize_t n;
  do {
    n = ::read(execPipe[0], &execErrno, sizeof execErrno);
  } while (n < 0 && errno == EINTR);
  closeFd(execPipe[0]);
  if (n == static_cast<ssize_t>(sizeof execErrno)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    closeFd(errPipe[0]);
    result.outcome = ChildResult::Outcome::CouldNotStart;
    result.stderrText = "cannot run '" + executable + "': " + std::strerror(execErrno);
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
