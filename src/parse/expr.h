// Lane expressions: the integer a warp's lane t computes, as users type it ("33*t+5", "(t%4)*8+t/4").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc {

/// A parsed integer expression in the lane index `t`: + - * / % ^ (xor) & | << >> ~, unary minus,
/// parentheses, decimal and 0x literals, with C's precedence. Division truncates toward zero as in
/// C. Every step is checked 64-bit arithmetic: an overflow, a division by zero or a shift outside
/// 0..62 is an InputError naming the option, never a wrong number.
class LaneExpression {
 public:
  struct Node;
  /// Parses `text`; throws InputError naming `option`, the text and the accepted form.
  LaneExpression(std::string_view text, std::string option);
  ~LaneExpression();
  LaneExpression(LaneExpression&&) noexcept;
  LaneExpression& operator=(LaneExpression&&) noexcept;

  /// The value for lane `t`; throws InputError on overflow, division by zero or a bad shift.
  std::int64_t evaluate(std::int64_t t) const;
  /// True when the expression mentions t.
  bool uses_lane() const { return uses_lane_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::string option_;
  std::vector<Node> nodes_;  // nodes_[0] is the root
  bool uses_lane_ = false;
};

/// The accepted form of a lane expression, for error messages.
std::string lane_expression_form();

/// Values for lanes 0..lanes-1 from either a comma list ("0,4,8": lane i takes item i; a list may be
/// shorter than the warp, the rest of the lanes are inactive) or one lane expression ("128*t+4").
/// Each value must lie in [min, max]. Returns one value per listed lane.
std::vector<std::int64_t> lane_values(std::string_view text, const std::string& option, int lanes, std::int64_t min,
                                      std::int64_t max);

}  // namespace gpucalc
