// AtomicOutput: the final name appears only on commit; the temporary file never survives.
#include "engine/io/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "engine/core/error.h"

namespace fs = std::filesystem;

namespace modescope {
namespace {

void construct(const std::string& path) { AtomicOutput out(path); }

class AtomicDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "modescope-atomic-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::size_t entryCount() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(AtomicDir, TemporaryIsHiddenInTheSameFolder) {
  const fs::path final = dir_ / "out.h5";
  AtomicOutput out(final.string());
  const fs::path tmp = out.temporaryPath();
  EXPECT_EQ(tmp.parent_path(), dir_);
  EXPECT_EQ(tmp.filename().string().rfind(".out.h5.partial-", 0), 0u) << tmp;
  EXPECT_NE(tmp, final);
  AtomicOutput other(final.string());
  EXPECT_NE(other.temporaryPath(), out.temporaryPath());  // two writers never share a name
}

TEST_F(AtomicDir, CommitRenamesAndKeepsContent) {
  const fs::path final = dir_ / "a.txt";
  {
    AtomicOutput out(final.string());
    std::ofstream(out.temporaryPath()) << "complete";
    EXPECT_FALSE(fs::exists(final));
    out.commit();
    EXPECT_FALSE(fs::exists(out.temporaryPath()));
  }
  EXPECT_EQ(slurp(final), "complete");
  EXPECT_EQ(entryCount(), 1u);
}

TEST_F(AtomicDir, WithoutCommitNothingRemains) {
  const fs::path final = dir_ / "b.txt";
  {
    AtomicOutput out(final.string());
    std::ofstream(out.temporaryPath()) << "half";
  }
  EXPECT_FALSE(fs::exists(final));
  EXPECT_EQ(entryCount(), 0u);
}

TEST_F(AtomicDir, ExceptionUnwindingRemovesTheTemporary) {
  const fs::path final = dir_ / "c.txt";
  std::ofstream(final) << "old";
  try {
    AtomicOutput out(final.string());
    std::ofstream(out.temporaryPath()) << "new but incomplete";
    throw std::runtime_error("writer failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(slurp(final), "old");  // the previous file is untouched
  EXPECT_EQ(entryCount(), 1u);
}

TEST_F(AtomicDir, CommitReplacesAnExistingFile) {
  const fs::path final = dir_ / "d.txt";
  std::ofstream(final) << "old";
  AtomicOutput out(final.string());
  std::ofstream(out.temporaryPath()) << "new";
  out.commit();
  EXPECT_EQ(slurp(final), "new");
}

TEST_F(AtomicDir, CommitWithoutATemporaryIsOutputError) {
  AtomicOutput out((dir_ / "e.txt").string());
  EXPECT_THROW(out.commit(), OutputError);
  EXPECT_FALSE(fs::exists(dir_ / "e.txt"));
}

TEST_F(AtomicDir, UnusableFoldersAreOutputErrors) {
  std::ofstream(dir_ / "file") << "x";
  EXPECT_THROW(construct((dir_ / "file" / "out.h5").string()), OutputError);
  EXPECT_THROW(construct((dir_ / "missing" / "out.h5").string()), OutputError);
  EXPECT_THROW(construct(dir_.string() + "/"), OutputError);  // names no file
  fs::create_directory(dir_ / "sub");
  EXPECT_THROW(construct((dir_ / "sub").string()), OutputError);  // a folder, not a file
  if (::geteuid() != 0) {                                         // root may write anywhere
    fs::create_directory(dir_ / "ro");
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(construct((dir_ / "ro" / "x").string()), OutputError);
    fs::permissions(dir_ / "ro", fs::perms::owner_all);
  }
}

TEST_F(AtomicDir, RelativeNamesStayInTheWorkingFolder) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  {
    AtomicOutput out("rel.txt");
    EXPECT_EQ(out.temporaryPath().find('/'), std::string::npos) << out.temporaryPath();
    std::ofstream(out.temporaryPath()) << "r";
    out.commit();
  }
  fs::current_path(cwd);
  EXPECT_TRUE(fs::exists(dir_ / "rel.txt"));
}

}  // namespace
}  // namespace modescope
