// What a job hands back: one immutable value of the type its function returned, shared as
// std::shared_ptr<const T>, and read back only as that type (get<T>). The queue runs jobs of
// every kind, so it carries the result type-erased; the type is checked where it is read, and a
// mismatch is a programming error that names both types.
//
// JobFunction wraps any callable taking a JobContext&: its return type becomes the result's
// type (void: an empty result; a std::shared_ptr<T> or <const T>: shared as it is, not copied,
// and read back as get<T>).
//
// Thread rules: a JobResult is immutable once made; copies share the value and may be read from
// any thread.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>

namespace modescope {

class JobContext;

// The readable (demangled where the compiler allows) name of a type, for error messages.
std::string readableTypeName(const std::type_info& type);

class JobResult {
 public:
  JobResult() = default;  // empty: the job returned nothing, or did not succeed

  template <class T>
  static JobResult of(T value) {
    using V = std::remove_cvref_t<T>;
    return share(std::make_shared<const V>(std::move(value)));
  }
  template <class T>
  static JobResult share(std::shared_ptr<const T> value) {
    JobResult r;
    r.type_ = std::type_index(typeid(T));
    r.value_ = std::move(value);
    return r;
  }

  bool empty() const { return value_ == nullptr; }
  // The stored type's name, "nothing" when empty.
  std::string typeName() const;

  // The value, as the type the job returned. Throws std::logic_error naming both types when T
  // is another type, or when the result is empty.
  template <class T>
  std::shared_ptr<const T> get() const {
    if (empty() || type_ != std::type_index(typeid(T))) throwMismatch(typeid(T));
    return std::static_pointer_cast<const T>(value_);
  }

 private:
  [[noreturn]] void throwMismatch(const std::type_info& asked) const;

  std::shared_ptr<const void> value_;
  std::type_index type_ = std::type_index(typeid(void));
};

namespace job_result_detail {
template <class T>
struct SharedElement {
  using type = void;
};
template <class T>
struct SharedElement<std::shared_ptr<T>> {
  using type = std::remove_const_t<T>;
};
}  // namespace job_result_detail

// A job's function: any callable with a JobContext& argument; what it returns is stored as the
// job's JobResult.
class JobFunction {
 public:
  JobFunction() = default;
  JobFunction(std::nullptr_t) {}
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, JobFunction> &&
                                              std::is_invocable_v<F&, JobContext&>>>
  JobFunction(F fn) : fn_(wrap(std::move(fn))) {}

  JobResult operator()(JobContext& ctx) const { return fn_(ctx); }
  explicit operator bool() const { return static_cast<bool>(fn_); }

 private:
  template <class F>
  static std::function<JobResult(JobContext&)> wrap(F fn) {
    using R = std::invoke_result_t<F&, JobContext&>;
    return [fn = std::move(fn)](JobContext& ctx) mutable -> JobResult {
      if constexpr (std::is_void_v<R>) {
        fn(ctx);
        return {};
      } else if constexpr (std::is_same_v<std::remove_cvref_t<R>, JobResult>) {
        return fn(ctx);
      } else if constexpr (!std::is_void_v<typename job_result_detail::SharedElement<
                               std::remove_cvref_t<R>>::type>) {
        using T = typename job_result_detail::SharedElement<std::remove_cvref_t<R>>::type;
        return JobResult::share(std::shared_ptr<const T>(fn(ctx)));
      } else {
        return JobResult::of(fn(ctx));
      }
    };
  }

  std::function<JobResult(JobContext&)> fn_;
};

}  // namespace modescope
