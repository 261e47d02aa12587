#include "parse/expr.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>

#include "core/error.h"

namespace gpucalc {

namespace {

constexpr std::size_t kMaxLength = 256;  // characters in one expression
constexpr int kMaxDepth = 32;            // nested parentheses and unary operators
constexpr std::int64_t kMaxShift = 62;

enum class Op { number, lane, neg, bit_not, add, sub, mul, div, mod, shl, shr, bit_and, bit_xor, bit_or };

}  // namespace

struct LaneExpression::Node {
  Op op = Op::number;
  std::int64_t value = 0;  // for Op::number
  int lhs = -1;            // operand indices into nodes_ (unary: lhs only)
  int rhs = -1;
};

std::string lane_expression_form() {
  return "an integer expression in the lane t (0 to 31) such as 33*t+5, t*2 or (t%4)*8+t/4, with + - * / % "
         "^ (xor) & | << >> ~, parentheses and decimal or 0x numbers";
}

namespace {

// Recursive descent over C's precedence: | below ^ below & below shifts below + - below * / %
// below unary - + ~ below numbers, t and parentheses.
class Parser {
 public:
  Parser(std::string_view text, const std::string& option, std::vector<LaneExpression::Node>& nodes, bool& uses_lane)
      : text_(text), option_(option), nodes_(nodes), uses_lane_(uses_lane) {}

  int parse() {
    if (text_.size() > kMaxLength) fail(fmt::format("at most {} characters", kMaxLength));
    skip_space();
    if (pos_ == text_.size()) fail("an expression, not an empty string");
    int root = binary(0);
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}' at position {}", text_[pos_], pos_ + 1));
    return root;
  }

 private:
  struct Level {
    Op ops[3];
    const char* tokens[3];
    int count;
  };
  // Binary operator levels, lowest precedence first.
  static constexpr Level kLevels[] = {
      {{Op::bit_or}, {"|"}, 1},
      {{Op::bit_xor}, {"^"}, 1},
      {{Op::bit_and}, {"&"}, 1},
      {{Op::shl, Op::shr}, {"<<", ">>"}, 2},
      {{Op::add, Op::sub}, {"+", "-"}, 2},
      {{Op::mul, Op::div, Op::mod}, {"*", "/", "%"}, 3},
  };
  static constexpr int kLevelCount = sizeof(kLevels) / sizeof(kLevels[0]);

  [[noreturn]] void fail(const std::string& reason) const {
    throw InputError(option_, std::string(text_), lane_expression_form() + " (" + reason + ")");
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  int add(Op op, std::int64_t value, int lhs, int rhs) {
    if (nodes_.size() >= kMaxLength) fail("too many terms");
    nodes_.push_back({op, value, lhs, rhs});
    return static_cast<int>(nodes_.size() - 1);
  }

  int binary(int level) {
    if (level == kLevelCount) return unary();
    int lhs = binary(level + 1);
    while (true) {
      const Level& l = kLevels[level];
      int matched = -1;
      for (int i = 0; i < l.count && matched < 0; ++i) {
        skip_space();
        std::string_view tok(l.tokens[i]);
        if (text_.substr(pos_, tok.size()) != tok) continue;
        // A single '|', '&', '<' or '>' must not be the first half of a longer token we do not know.
        if (tok.size() == 1 && pos_ + 1 < text_.size() && (tok == "|" || tok == "&") && text_[pos_ + 1] == tok[0]) {
          fail(fmt::format("'{}{}' at position {}: use '{}' (bitwise)", tok, tok, pos_ + 1, tok));
        }
        matched = i;
      }
      if (matched < 0) return lhs;
      pos_ += std::string_view(l.tokens[matched]).size();
      int rhs = binary(level + 1);
      lhs = add(l.ops[matched], 0, lhs, rhs);
    }
  }

  int unary() {
    skip_space();
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '~')) {
      char c = text_[pos_++];
      if (++depth_ > kMaxDepth) fail(fmt::format("at most {} nested operators or parentheses", kMaxDepth));
      int operand = unary();
      --depth_;
      if (c == '+') return operand;
      return add(c == '-' ? Op::neg : Op::bit_not, 0, operand, -1);
    }
    return primary();
  }

  int primary() {
    skip_space();
    if (pos_ == text_.size()) fail("the expression ends where a number, t or '(' was expected");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      if (++depth_ > kMaxDepth) fail(fmt::format("at most {} nested operators or parentheses", kMaxDepth));
      int inner = binary(0);
      --depth_;
      skip_space();
      if (pos_ == text_.size() || text_[pos_] != ')') fail(fmt::format("a ')' at position {}", pos_ + 1));
      ++pos_;
      return inner;
    }
    if (c == 't') {
      ++pos_;
      if (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        fail(fmt::format("unknown name at position {}: the only variable is t", pos_));
      }
      uses_lane_ = true;
      return add(Op::lane, 0, -1, -1);
    }
    if (c >= '0' && c <= '9') return number();
    fail(fmt::format("unexpected '{}' at position {}: expected a number, t or '('", c, pos_ + 1));
  }

  int number() {
    std::int64_t value = 0;
    int base = 10;
    std::size_t start = pos_;
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X')) {
      base = 16;
      pos_ += 2;
    }
    std::size_t digits = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      int d = -1;
      if (c >= '0' && c <= '9') d = c - '0';
      if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
      if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
      if (d < 0) break;
      if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, d, &value)) {
        fail(fmt::format("the number at position {} exceeds 2^63 - 1", start + 1));
      }
      ++pos_;
      ++digits;
    }
    if (digits == 0) fail(fmt::format("hex digits after '0x' at position {}", start + 1));
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
                                text_[pos_] == '_')) {
      fail(fmt::format("unexpected '{}' at position {}: whole numbers only", text_[pos_], pos_ + 1));
    }
    return add(Op::number, value, -1, -1);
  }

  std::string_view text_;
  const std::string& option_;
  std::vector<LaneExpression::Node>& nodes_;
  bool& uses_lane_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

LaneExpression::LaneExpression(std::string_view text, std::string option)
    : text_(text), option_(std::move(option)) {
  std::vector<Node> parsed;
  Parser parser(text_, option_, parsed, uses_lane_);
  int root = parser.parse();
  // Reorder so the root is first: evaluation starts at nodes_[0].
  nodes_.reserve(parsed.size() + 1);
  nodes_.push_back(parsed[static_cast<std::size_t>(root)]);
  for (const Node& n : parsed) nodes_.push_back(n);
  // Operand indices shift by one (the copy of the root is in front).
  for (Node& n : nodes_) {
    if (n.lhs >= 0) ++n.lhs;
    if (n.rhs >= 0) ++n.rhs;
  }
}

LaneExpression::~LaneExpression() = default;
LaneExpression::LaneExpression(LaneExpression&&) noexcept = default;
LaneExpression& LaneExpression::operator=(LaneExpression&&) noexcept = default;

namespace {

struct Evaluator {
  const std::vector<LaneExpression::Node>& nodes;
  const std::string& text;
  const std::string& option;
  std::int64_t t;

  [[noreturn]] void fail(const std::string& reason) const {
    throw InputError(option, text, fmt::format("{} ({} at t = {})", lane_expression_form(), reason, t));
  }

  std::int64_t eval(int index) const {
    const LaneExpression::Node& n = nodes[static_cast<std::size_t>(index)];
    std::int64_t r = 0;
    switch (n.op) {
      case Op::number: return n.value;
      case Op::lane: return t;
      case Op::neg:
        if (__builtin_sub_overflow(std::int64_t{0}, eval(n.lhs), &r)) fail("overflow of 64-bit integers");
        return r;
      case Op::bit_not: return ~eval(n.lhs);
      default: break;
    }
    const std::int64_t a = eval(n.lhs);
    const std::int64_t b = eval(n.rhs);
    switch (n.op) {
      case Op::add:
        if (__builtin_add_overflow(a, b, &r)) fail("overflow of 64-bit integers");
        return r;
      case Op::sub:
        if (__builtin_sub_overflow(a, b, &r)) fail("overflow of 64-bit integers");
        return r;
      case Op::mul:
        if (__builtin_mul_overflow(a, b, &r)) fail("overflow of 64-bit integers");
        return r;
      case Op::div:
      case Op::mod:
        if (b == 0) fail("division by zero");
        if (a == std::numeric_limits<std::int64_t>::min() && b == -1) fail("overflow of 64-bit integers");
        return n.op == Op::div ? a / b : a % b;
      case Op::shl:
      case Op::shr:
        if (b < 0 || b > kMaxShift) fail(fmt::format("a shift by {}: shifts are 0 to {}", b, kMaxShift));
        if (n.op == Op::shr) return a >> b;
        // a << b = a x 2^b, checked.
        if (__builtin_mul_overflow(a, std::int64_t{1} << b, &r)) fail("overflow of 64-bit integers");
        return r;
      case Op::bit_and: return a & b;
      case Op::bit_xor: return a ^ b;
      case Op::bit_or: return a | b;
      default: break;
    }
    fail("an unknown operator");
  }
};

}  // namespace

std::int64_t LaneExpression::evaluate(std::int64_t t) const {
  Evaluator e{nodes_, text_, option_, t};
  return e.eval(0);
}

std::vector<std::int64_t> lane_values(std::string_view text, const std::string& option, int lanes, std::int64_t min,
                                      std::int64_t max) {
  std::vector<std::int64_t> values;
  const std::string whole(text);
  auto check = [&](std::int64_t v, int lane) {
    if (v < min || v > max) {
      throw InputError(option, whole,
                       fmt::format("values from {} to {} (lane {} gets {})", min, max, lane, v));
    }
    return v;
  };
  if (text.find(',') != std::string_view::npos) {
    // A comma list: one number (or constant expression) per lane, in lane order.
    std::size_t start = 0;
    while (true) {
      std::size_t comma = text.find(',', start);
      std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      if (static_cast<int>(values.size()) == lanes) {
        throw InputError(option, whole, fmt::format("a list of at most {} values, one per lane", lanes));
      }
      bool uses_lane = false;
      std::int64_t v = 0;
      try {
        LaneExpression e(item, option);
        uses_lane = e.uses_lane();
        if (!uses_lane) v = e.evaluate(0);
      } catch (const InputError&) {
        throw InputError(option, whole,
                         fmt::format("a comma list of whole numbers such as 0,4,8,12 (item {} is '{}'), or {}",
                                     values.size() + 1, item, lane_expression_form()));
      }
      if (uses_lane) {
        throw InputError(option, whole, "either a comma list of numbers (0,4,8) or one expression in t, not both");
      }
      values.push_back(check(v, static_cast<int>(values.size())));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return values;
  }
  LaneExpression e(text, option);
  for (int t = 0; t < lanes; ++t) values.push_back(check(e.evaluate(t), t));
  return values;
}

}  // namespace gpucalc
