#include "parse/pattern.h"

#include <fmt/format.h>

#include <utility>

namespace gpucalc {
namespace {

constexpr int kUnbounded = -1;

// The parsed pattern, a tree in an array: a node's children are indices into it.
struct Node {
  enum Kind : unsigned char { set, empty, concat, alternation, repeat, line_begin, line_end } kind;
  std::bitset<256> bytes;     // set
  std::vector<int> children;  // concat, alternation; repeat: one
  int min = 0, max = 0;       // repeat: max kUnbounded for no bound
};

std::bitset<256> range(unsigned char lo, unsigned char hi) {
  std::bitset<256> s;
  for (int c = lo; c <= hi; ++c) s.set(static_cast<std::size_t>(c));
  return s;
}

std::bitset<256> digits() { return range('0', '9'); }
std::bitset<256> word() { return range('a', 'z') | range('A', 'Z') | digits() | range('_', '_'); }
std::bitset<256> space() {
  std::bitset<256> s;
  for (const char c : {' ', '\t', '\n', '\v', '\f', '\r'}) s.set(static_cast<unsigned char>(c));
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Recursive descent over the ECMAScript subset: alternation > concatenation > quantified atom.
// Nesting is bounded by the pattern's length (kMaxPatternChars), so is the recursion.
class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  int parse(std::vector<Node>& nodes) {
    nodes_ = &nodes;
    const int root = alternation();
    if (i_ < s_.size()) fail("a ) closes no (", i_);  // alternation stops only at ')' or the end
    return root;
  }

 private:
  [[noreturn]] static void fail(const std::string& reason, std::size_t at) { throw PatternError(reason, at); }

  int add(Node n) {
    nodes_->push_back(std::move(n));
    return static_cast<int>(nodes_->size() - 1);
  }
  int add_set(const std::bitset<256>& bytes) { return add(Node{Node::set, bytes, {}, 0, 0}); }

  bool more() const { return i_ < s_.size(); }
  char peek() const { return s_[i_]; }

  int alternation() {
    std::vector<int> branches{concatenation()};
    while (more() && peek() == '|') {
      ++i_;
      branches.push_back(concatenation());
    }
    if (branches.size() == 1) return branches[0];
    return add(Node{Node::alternation, {}, std::move(branches), 0, 0});
  }

  int concatenation() {
    std::vector<int> items;
    while (more() && peek() != '|' && peek() != ')') {
      const std::size_t at = i_;
      const int a = atom();
      items.push_back(quantified(a, at));
    }
    if (items.empty()) return add(Node{Node::empty, {}, {}, 0, 0});
    if (items.size() == 1) return items[0];
    return add(Node{Node::concat, {}, std::move(items), 0, 0});
  }

  static bool is_quantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

  // A count of {m,n}: digits, at most kMaxPatternRepeat.
  int count(std::size_t open) {
    if (!more() || !is_digit(peek())) {
      fail("a { starts no {m}, {m,} or {m,n}: write \\{ for the character", open);
    }
    long n = 0;
    while (more() && is_digit(peek())) {
      n = n * 10 + (peek() - '0');
      if (n > kMaxPatternRepeat) fail(fmt::format("a count above {} in {{m,n}}", kMaxPatternRepeat), open);
      ++i_;
    }
    return static_cast<int>(n);
  }

  // The atom `a` with the quantifiers after it, if any (one, optionally lazy).
  int quantified(int a, std::size_t atom_at) {
    if (!more() || !is_quantifier(peek())) return a;
    const std::size_t at = i_;
    const Node::Kind kind = (*nodes_)[static_cast<std::size_t>(a)].kind;
    if (kind == Node::line_begin || kind == Node::line_end) {
      fail(fmt::format("a quantifier {} after the anchor {}", peek(), s_[atom_at]), at);
    }
    int min = 0, max = kUnbounded;
    const char q = peek();
    ++i_;
    if (q == '+') {
      min = 1;
    } else if (q == '?') {
      max = 1;
    } else if (q == '{') {
      min = count(at);
      max = min;
      if (more() && peek() == ',') {
        ++i_;
        max = more() && peek() == '}' ? kUnbounded : count(at);
      }
      if (!more() || peek() != '}') fail("a { starts no {m}, {m,} or {m,n}: write \\{ for the character", at);
      ++i_;
      if (max != kUnbounded && max < min) fail(fmt::format("{{{},{}}}: the first count is the larger", min, max), at);
    }
    if (more() && peek() == '?') ++i_;  // lazy: the same answer for a search
    if (more() && is_quantifier(peek())) fail(fmt::format("a quantifier {} after another", peek()), i_);
    return add(Node{Node::repeat, {}, {a}, min, max});
  }

  int atom() {
    const std::size_t at = i_;
    const char c = peek();
    ++i_;
    switch (c) {
      case '(': {
        if (more() && peek() == '?') {
          const char next = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
          if (next == '=' || next == '!') fail(fmt::format("a lookahead (?{} is not read", next), at);
          if (next == '<') fail("a lookbehind or named group (?< is not read", at);
          if (next != ':') fail("(? that is not (?: is not read", at);
          i_ += 2;
        }
        const int inner = alternation();
        if (!more()) fail("a ( is not closed", at);
        ++i_;  // ')'
        return inner;
      }
      case '[': return bracket(at);
      case '.': return add_set(~(range('\n', '\n') | range('\r', '\r')));
      case '^': return add(Node{Node::line_begin, {}, {}, 0, 0});
      case '$': return add(Node{Node::line_end, {}, {}, 0, 0});
      case '*': case '+': case '?': fail(fmt::format("a quantifier {} after nothing", c), at);
      case '{':
        // {m,n} after nothing; a { that is no quantifier is refused the same way as std::regex does.
        fail("a { after nothing: write \\{ for the character", at);
      case '\\': {
        std::bitset<256> s;
        escape(at, false, s);  // a class (\d) or one character: a set either way
        return add_set(s);
      }
      default: return add_set(range(static_cast<unsigned char>(c), static_cast<unsigned char>(c)));
    }
  }

  // The escape after the backslash at `at` into `s`: true when it is a class (\d \w \s and their
  // negations), false when it is one character.
  bool escape(std::size_t at, bool in_class, std::bitset<256>& s) {
    if (!more()) fail("a \\ ends the pattern", at);
    const char c = peek();
    ++i_;
    switch (c) {
      case 'd': s = digits(); return true;
      case 'D': s = ~digits(); return true;
      case 'w': s = word(); return true;
      case 'W': s = ~word(); return true;
      case 's': s = space(); return true;
      case 'S': s = ~space(); return true;
      case 't': s.set('\t'); return false;
      case 'n': s.set('\n'); return false;
      case 'r': s.set('\r'); return false;
      case 'f': s.set('\f'); return false;
      case 'v': s.set('\v'); return false;
      case 'b': case 'B':
        fail(in_class ? "\\b in a class is not read" : fmt::format("a word boundary \\{} is not read", c), at);
      default: break;
    }
    if (c >= '1' && c <= '9') fail(fmt::format("a backreference \\{} is not read", c), at);
    if (is_alnum(c) || static_cast<unsigned char>(c) >= 0x80) fail(fmt::format("the escape \\{} is not read", c), at);
    s.set(static_cast<unsigned char>(c));  // an escaped metacharacter or punctuation: itself
    return false;
  }

  // One member of a class: a character (into `c`) or a class escape (into `s`, returns true).
  bool class_atom(std::size_t open, std::bitset<256>& s, unsigned char& c) {
    if (!more()) fail("a [ is not closed", open);
    const std::size_t at = i_;
    if (peek() == '\\') {
      ++i_;
      std::bitset<256> e;
      if (escape(at, true, e)) {
        s = e;
        return true;
      }
      for (int b = 0; b < 256; ++b) {
        if (e.test(static_cast<std::size_t>(b))) c = static_cast<unsigned char>(b);
      }
      return false;
    }
    c = static_cast<unsigned char>(peek());
    ++i_;
    return false;
  }

  int bracket(std::size_t open) {
    bool negate = false;
    if (more() && peek() == '^') {
      negate = true;
      ++i_;
    }
    if (more() && peek() == ']') fail(negate ? "an empty class [^] is not read" : "an empty class [] is not read", open);
    std::bitset<256> members;
    for (;;) {
      if (!more()) fail("a [ is not closed", open);
      if (peek() == ']') {
        ++i_;
        break;
      }
      const std::size_t at = i_;
      std::bitset<256> cls;
      unsigned char lo = 0;
      const bool lo_class = class_atom(open, cls, lo);
      if (more() && peek() == '-' && i_ + 1 < s_.size() && s_[i_ + 1] != ']') {
        ++i_;
        std::bitset<256> cls_hi;
        unsigned char hi = 0;
        const bool hi_class = class_atom(open, cls_hi, hi);
        if (lo_class || hi_class) fail("a range from or to a class escape (\\d, \\w, \\s) is not read", at);
        if (hi < lo) fail(fmt::format("the range {}-{} is reversed", static_cast<char>(lo), static_cast<char>(hi)), at);
        members |= range(lo, hi);
      } else if (lo_class) {
        members |= cls;
      } else {
        members.set(lo);
      }
    }
    return add_set(negate ? ~members : members);
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::vector<Node>* nodes_ = nullptr;
};

// The tree to NFA steps; every step counted against kMaxPatternStates before it is added.
class Compiler {
 public:
  Compiler(const std::vector<Node>& nodes, std::vector<Pattern::Step>& steps, std::vector<std::bitset<256>>& sets)
      : nodes_(nodes), steps_(steps), sets_(sets) {}

  void emit(int index) {
    const Node& n = nodes_[static_cast<std::size_t>(index)];
    switch (n.kind) {
      case Node::set:
        sets_.push_back(n.bytes);
        push({Pattern::Step::byte_set, static_cast<int>(sets_.size() - 1), 0});
        return;
      case Node::empty: return;
      case Node::line_begin: push({Pattern::Step::line_begin, 0, 0}); return;
      case Node::line_end: push({Pattern::Step::line_end, 0, 0}); return;
      case Node::concat:
        for (const int c : n.children) emit(c);
        return;
      case Node::alternation: {
        // split L1, next; L1: branch; jump end; next: split ... ; the last branch falls through.
        std::vector<int> jumps;
        for (std::size_t b = 0; b < n.children.size(); ++b) {
          if (b + 1 == n.children.size()) {
            emit(n.children[b]);
            break;
          }
          const int split = push({Pattern::Step::split, 0, 0});
          steps_[static_cast<std::size_t>(split)].next = here();
          emit(n.children[b]);
          jumps.push_back(push({Pattern::Step::jump, 0, 0}));
          steps_[static_cast<std::size_t>(split)].other = here();
        }
        for (const int j : jumps) steps_[static_cast<std::size_t>(j)].next = here();
        return;
      }
      case Node::repeat: {
        const int child = n.children[0];
        for (int k = 0; k < n.min; ++k) emit(child);
        if (n.max == kUnbounded) {
          // loop: split body, end; body; jump loop
          const int loop = push({Pattern::Step::split, 0, 0});
          steps_[static_cast<std::size_t>(loop)].next = here();
          emit(child);
          push({Pattern::Step::jump, loop, 0});
          steps_[static_cast<std::size_t>(loop)].other = here();
          return;
        }
        // Each optional copy: split body, end (all to the same end).
        std::vector<int> splits;
        for (int k = n.min; k < n.max; ++k) {
          const int split = push({Pattern::Step::split, 0, 0});
          steps_[static_cast<std::size_t>(split)].next = here();
          splits.push_back(split);
          emit(child);
        }
        for (const int s : splits) steps_[static_cast<std::size_t>(s)].other = here();
        return;
      }
    }
  }

  int push(Pattern::Step s) {
    if (steps_.size() >= kMaxPatternStates) {
      throw PatternError(fmt::format("it needs more than {} NFA states (repetitions multiply): fewer or smaller {{m,n}}",
                                     kMaxPatternStates),
                         0);
    }
    steps_.push_back(s);
    return static_cast<int>(steps_.size() - 1);
  }
  int here() const { return static_cast<int>(steps_.size()); }

 private:
  const std::vector<Node>& nodes_;
  std::vector<Pattern::Step>& steps_;
  std::vector<std::bitset<256>>& sets_;
};

// A set of step indices with O(1) insert, test and clear (the sparse-set of Briggs and Torczon).
class StepSet {
 public:
  explicit StepSet(std::size_t n) : dense_(n), sparse_(n, 0) {}
  bool insert(int s) {
    const auto i = static_cast<std::size_t>(s);
    if (sparse_[i] < size_ && dense_[sparse_[i]] == s) return false;
    sparse_[i] = size_;
    dense_[size_++] = s;
    return true;
  }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  int operator[](std::size_t i) const { return dense_[i]; }

 private:
  std::vector<int> dense_;
  std::vector<std::size_t> sparse_;
  std::size_t size_ = 0;
};

}  // namespace

Pattern::Pattern(std::string_view text) {
  if (text.size() > kMaxPatternChars) {
    throw PatternError(fmt::format("{} characters, more than {}", text.size(), kMaxPatternChars), kMaxPatternChars);
  }
  std::vector<Node> nodes;
  const int root = Parser(text).parse(nodes);
  Compiler compiler(nodes, steps_, sets_);
  compiler.emit(root);
  compiler.push({Step::match, 0, 0});
  // Anchored: from step 0, past any position but the first, no step that reads or matches is reached.
  std::vector<bool> seen(steps_.size(), false);
  std::vector<int> stack{0};
  anchored_ = true;
  while (!stack.empty()) {
    const auto pc = static_cast<std::size_t>(stack.back());
    stack.pop_back();
    if (seen[pc]) continue;
    seen[pc] = true;
    const Step& s = steps_[pc];
    if (s.kind == Step::byte_set || s.kind == Step::match) anchored_ = false;
    if (s.kind == Step::split) stack.push_back(s.other);
    if (s.kind == Step::split || s.kind == Step::jump) stack.push_back(s.next);
    if (s.kind == Step::line_end) stack.push_back(static_cast<int>(pc + 1));
  }
}

bool Pattern::search(std::string_view text) const {
  StepSet current(steps_.size()), next(steps_.size());
  std::vector<int> stack;
  stack.reserve(steps_.size());
  // Adds `start`'s closure at position `at` to `set`: true when it reaches the match.
  auto add = [&](StepSet& set, int start, std::size_t at) {
    stack.clear();
    stack.push_back(start);
    while (!stack.empty()) {
      const int pc = stack.back();
      stack.pop_back();
      if (!set.insert(pc)) continue;
      const Step& s = steps_[static_cast<std::size_t>(pc)];
      switch (s.kind) {
        case Step::match: return true;
        case Step::byte_set: break;
        case Step::jump: stack.push_back(s.next); break;
        case Step::split:
          stack.push_back(s.other);
          stack.push_back(s.next);
          break;
        case Step::line_begin:
          if (at == 0) stack.push_back(pc + 1);
          break;
        case Step::line_end:
          if (at == text.size()) stack.push_back(pc + 1);
          break;
      }
    }
    return false;
  };
  for (std::size_t at = 0;; ++at) {
    // A search: a new thread starts at every position (at the first only, when anchored).
    if ((at == 0 || !anchored_) && add(current, 0, at)) return true;
    if (at == text.size() || (current.size() == 0 && anchored_)) return false;
    const auto byte = static_cast<unsigned char>(text[at]);
    next.clear();
    for (std::size_t k = 0; k < current.size(); ++k) {
      const Step& s = steps_[static_cast<std::size_t>(current[k])];
      if (s.kind == Step::byte_set && sets_[static_cast<std::size_t>(s.next)].test(byte) && add(next, current[k] + 1, at + 1)) {
        return true;
      }
    }
    std::swap(current, next);
  }
}

std::string pattern_form() {
  return fmt::format(
      "at most {} characters of ECMAScript's common part: literals, ., [a-z0-9_] and "
      "[^...], \\d \\w \\s (and \\D \\W \\S), an escaped metacharacter such as \\. or \\(, ^ $, ( ) and (?: ), |, * + ? "
      "{{m}} {{m,}} {{m,n}} (counts at most {}); no backreferences, lookaround or \\b",
      kMaxPatternChars, kMaxPatternRepeat);
}

}  // namespace gpucalc
