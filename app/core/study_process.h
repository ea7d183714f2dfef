// Child processes of a study: a task process per recording (`modescope-cli study task`) and,
// inside it, `modescope-cli run`. Unlike runChildProcess (engine/io/child_process.h), the child
// writes its stderr to a log file, gets extra environment (CUDA_VISIBLE_DEVICES) and stays in the
// caller's process group, so Ctrl-C on the terminal and Slurm's signals reach the whole tree; and
// the caller waits for several children at once.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace modescope {

// Starts argv[0] (a path) with stdin on /dev/null, stdout on `stdoutPath` ("" = /dev/null) and
// stderr appended to `logPath`
// ("" = /dev/null), with `extraEnv` ("NAME=value") over the inherited environment. Throws
// OutputError when the log cannot be opened, InvalidInputError when the program cannot start.
pid_t spawnLogged(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv,
                  const std::string& logPath, const std::string& stdoutPath = "");

// Runs argv (argv[0] looked up on PATH when it has no '/') to the end and returns its wait
// status, with its stdout and stderr in `out` and `err`. -1 when it cannot start.
int runCaptured(const std::vector<std::string>& argv, std::string* out, std::string* err);

// The full path of `program` on PATH, "" when it is not there.
std::string findOnPath(const std::string& program);

// How a child ended, from waitpid's status: the exit code, or 128 + the signal.
int exitCodeOf(int waitStatus);
// "exit code 2", "killed by signal 9 (Killed)".
std::string describeWaitStatus(int waitStatus);

// modescope-cli next to this executable (the study runs the CLI for each task).
std::string selfExecutable();

// The last `maxBytes` of a file ("" when it cannot be read).
std::string fileTail(const std::string& path, std::size_t maxBytes = 8192);

}  // namespace modescope
