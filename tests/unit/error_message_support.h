// The message of the error a call throws, for tests that check what a user is told.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace modescope::test_support {

// e.what() of the E that f() throws. Throwing nothing is a test failure (and gives ""); other
// exception types propagate, so a wrong error type fails the test loudly.
template <class E, class F>
std::string messageOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return {};
}

}  // namespace modescope::test_support
