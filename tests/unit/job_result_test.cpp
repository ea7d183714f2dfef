// A job's result is typed: read back as the type the job returned, shared without a copy, and a
// read as another type (or of a job that returned nothing) is refused with both types named.
#include "engine/core/job_result.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/core/job_queue.h"

using namespace modescope;

namespace {

struct Spectrum {
  std::vector<double> power;
};

std::string mismatchMessage(const JobResult& r) {
  try {
    (void)r.get<Spectrum>();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

JobOutcome runInline(const JobFunction& fn) {
  JobContext ctx(std::stop_token{}, {});
  return runJobInline(fn, ctx);
}

}  // namespace

TEST(JobResult, ReadsBackTheTypeTheJobReturned) {
  const JobOutcome out = runInline([](JobContext&) { return Spectrum{{1.0, 2.5}}; });
  ASSERT_EQ(out.state, JobState::Succeeded);
  ASSERT_FALSE(out.result.empty());
  const std::shared_ptr<const Spectrum> s = out.result.get<Spectrum>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->power, (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(out.result.typeName(), "(anonymous namespace)::Spectrum");
}

TEST(JobResult, ASharedResultIsHandedOnWithoutACopy) {
  const auto made = std::make_shared<const Spectrum>(Spectrum{{3.0}});
  const JobOutcome out = runInline([made](JobContext&) { return made; });
  EXPECT_EQ(out.result.get<Spectrum>().get(), made.get());
  // A non-const shared_ptr is shared too, and read back as its element type.
  const auto mutableMade = std::make_shared<Spectrum>(Spectrum{{4.0}});
  const JobOutcome second = runInline([mutableMade](JobContext&) { return mutableMade; });
  EXPECT_EQ(second.result.get<Spectrum>().get(), mutableMade.get());
}

TEST(JobResult, ReadingAsAnotherTypeNamesBothTypes) {
  const JobResult r = JobResult::of(std::string("note"));
  const std::string message = mismatchMessage(r);
  EXPECT_NE(message.find("Spectrum"), std::string::npos) << message;
  EXPECT_NE(message.find("std::"), std::string::npos) << message;  // std::string's spelling
  EXPECT_NE(message.find("string"), std::string::npos) << message;
  EXPECT_EQ(*r.get<std::string>(), "note");
  // const and reference qualifiers of the stored value do not make another type.
  const JobResult q = JobResult::of<const int&>(7);
  EXPECT_EQ(*q.get<int>(), 7);
  EXPECT_THROW((void)q.get<long>(), std::logic_error);
}

TEST(JobResult, AnEmptyResultIsRefusedWithWhatWasAsked) {
  const JobOutcome out = runInline([](JobContext&) {});
  ASSERT_EQ(out.state, JobState::Succeeded);
  EXPECT_TRUE(out.result.empty());
  EXPECT_EQ(out.result.typeName(), "nothing");
  const std::string message = mismatchMessage(out.result);
  EXPECT_NE(message.find("Spectrum"), std::string::npos) << message;
  EXPECT_NE(message.find("returned nothing"), std::string::npos) << message;
  EXPECT_TRUE(JobResult().empty());
}

TEST(JobResult, AFailedJobCarriesNoResult) {
  const JobOutcome out = runInline(
      [](JobContext&) -> Spectrum { throw InvalidParameterError("order", "0", "1 to 100"); });
  EXPECT_EQ(out.state, JobState::Failed);
  EXPECT_TRUE(out.result.empty());
}

TEST(JobResult, CopiesShareTheOneImmutableValue) {
  const JobResult a = JobResult::of(Spectrum{{5.0}});
  const JobResult b = a;
  EXPECT_EQ(a.get<Spectrum>().get(), b.get<Spectrum>().get());
  static_assert(std::is_same_v<decltype(a.get<Spectrum>()), std::shared_ptr<const Spectrum>>);
}
