#include "json_fast_parse.hpp"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_map>
#include <utility>

namespace fabcheck::report::detail {

namespace {

using nlohmann::json;
/// One path of LoadOptions and what to do at it.
struct Rule {
  const std::vector<std::string>* path;
  bool dense;  ///< pack (LoadOptions::dense) instead of leaving out
};
using Skip = std::vector<Rule>;

/// The rules whose path continues below `key` (or below every element, key nullptr) at `depth`; `at` is the
/// rule that ends exactly there, if any.
void descend(const Skip& rules, const std::vector<std::size_t>& live, std::size_t depth,
             const std::string* key, std::vector<std::size_t>& next, const Rule*& at) {
  next.clear();
  at = nullptr;
  for (std::size_t s : live) {
    const auto& p = *rules[s].path;
    if (p[depth] != "*" && (!key || p[depth] != *key)) continue;
    if (p.size() == depth + 1) {
      if (!at) at = &rules[s];
    } else {
      next.push_back(s);
    }
  }
}

/// The binary value LoadOptions::dense promises: [rows, cols] as uint64, then the cells row-major (NaN for
/// null and for short rows).
json pack(std::size_t n_rows, std::size_t n_cols, const std::vector<double>& cells) {
  std::vector<std::uint8_t> bytes(2 * sizeof(std::uint64_t) + cells.size() * sizeof(double));
  const std::uint64_t dims[2] = {n_rows, n_cols};
  std::memcpy(bytes.data(), dims, sizeof dims);
  if (!cells.empty()) std::memcpy(bytes.data() + sizeof dims, cells.data(), cells.size() * sizeof(double));
  return json::binary(std::move(bytes), kDenseMatrixSubtype);
}

/// The cells of one parsed row (numbers; null as NaN); false when a cell is anything else.
bool row_cells(simdjson::dom::element row, std::vector<double>& out) {
  simdjson::dom::array a;
  if (row.get(a) != simdjson::SUCCESS) return false;
  for (auto c : a) {
    double d;
    if (c.is_null()) {
      out.push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (c.get(d) == simdjson::SUCCESS) {
      out.push_back(d);
    } else {
      return false;
    }
  }
  return true;
}

/// Packs a parsed matrix; nullopt when it is not an array of arrays of numbers and nulls.
std::optional<json> pack_element(simdjson::dom::element e) {
  simdjson::dom::array rows;
  if (e.get(rows) != simdjson::SUCCESS) return std::nullopt;
  std::vector<std::vector<double>> cells;
  std::size_t cols = 0;
  for (auto r : rows) {
    cells.emplace_back();
    if (!row_cells(r, cells.back())) return std::nullopt;
    cols = std::max(cols, cells.back().size());
  }
  std::vector<double> flat(cells.size() * cols, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < cells.size(); ++i)
    std::copy(cells[i].begin(), cells[i].end(), flat.begin() + static_cast<std::ptrdiff_t>(i * cols));
  return pack(cells.size(), cols, flat);
}

struct Refused {};  // simdjson or the splitter met something it does not take: the caller's slow path decides

json convert(simdjson::dom::element e, const Skip& skip, const std::vector<std::size_t>& live,
             std::size_t depth);

/// A dense rule's value: packed when it is a matrix, else converted as it is.
json apply(const Rule& r, simdjson::dom::element e, const Skip& skip, const std::vector<std::size_t>& live,
           std::size_t depth) {
  if (r.dense)
    if (auto p = pack_element(e)) return std::move(*p);
  return convert(e, skip, live, depth);
}

/// Converts one simdjson element. `live` lists the skip paths whose first `depth` keys match the path to
/// this element (so most of the document is converted without comparing strings).
json convert(simdjson::dom::element e, const Skip& skip, const std::vector<std::size_t>& live,
             std::size_t depth) {
  using T = simdjson::dom::element_type;
  switch (e.type()) {
    case T::ARRAY: {
      simdjson::dom::array a;
      if (e.get(a) != simdjson::SUCCESS) throw Refused{};
      json j = json::array();
      auto& v = j.get_ref<json::array_t&>();
      v.reserve(a.size());
      std::vector<std::size_t> next;  // "*" matches every element
      const Rule* at = nullptr;
      descend(skip, live, depth, nullptr, next, at);
      if (at && !at->dense) return j;  // every element left out
      for (auto x : a)
        v.push_back(at ? apply(*at, x, skip, next, depth + 1) : convert(x, skip, next, depth + 1));
      return j;
    }
    case T::OBJECT: {
      simdjson::dom::object o;
      if (e.get(o) != simdjson::SUCCESS) throw Refused{};
      json j = json::object();
      auto& m = j.get_ref<json::object_t&>();
      std::vector<std::size_t> next;
      for (auto kv : o) {
        std::string key(kv.key);
        const Rule* at = nullptr;
        if (!live.empty())
          descend(skip, live, depth, &key, next, at);
        else
          next.clear();
        if (at && !at->dense) continue;
        json value =
            at ? apply(*at, kv.value, skip, next, depth + 1) : convert(kv.value, skip, next, depth + 1);
        // nlohmann's parser keeps the last of duplicate keys (operator[] assignment); keys written by
        // fabcheck come sorted, so the hint at the end makes the common case constant time.
        if (m.empty() || m.rbegin()->first < key) {
          m.emplace_hint(m.end(), std::move(key), std::move(value));
        } else {
          m[std::move(key)] = std::move(value);
        }
      }
      return j;
    }
    case T::INT64: {
      const std::int64_t i = e.get_int64().value_unsafe();
      // nlohmann: a non-negative integer is number_unsigned
      return i >= 0 ? json(static_cast<std::uint64_t>(i)) : json(i);
    }
    case T::UINT64:
      return json(e.get_uint64().value_unsafe());
    case T::DOUBLE:
      return json(e.get_double().value_unsafe());
    case T::STRING:
      return json(std::string(e.get_string().value_unsafe()));
    case T::BOOL:
      return json(e.get_bool().value_unsafe());
    case T::NULL_VALUE:
      return json(nullptr);
  }
  return json(nullptr);
}

constexpr std::size_t npos = std::string::npos;

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skip_ws(std::string_view t, std::size_t i, std::size_t e) {
  while (i < e && is_ws(t[i])) ++i;
  return i;
}

/// Index after the string literal that opens at t[i] ('"'); npos when it does not close before e.
std::size_t string_end(std::string_view t, std::size_t i, std::size_t e) {
  for (++i; i < e;) {
    // to the next quote; it closes the string unless an odd run of backslashes precedes it
    const void* q = std::memchr(t.data() + i, '"', e - i);
    if (!q) return npos;
    const auto at = static_cast<std::size_t>(static_cast<const char*>(q) - t.data());
    std::size_t back = 0;
    while (at - back > i - 1 && t[at - back - 1] == '\\') ++back;
    if (back % 2 == 0) return at + 1;
    i = at + 1;
  }
  return npos;
}

/// Containers of at least this many bytes have their end recorded by the first scan (matrix rows,
/// sections), so that finding where a member ends never scans a large value twice.
constexpr std::size_t kRecordBytes = 4096;

/// One pass over the whole text, before anything is parsed: brackets paired, strings closed, nesting within
/// `max_depth`; records the end (index after the closing bracket) of every container of at least
/// kRecordBytes. False when the text is not well formed that way (the slow path then says where).
bool scan(std::string_view t, std::size_t max_depth, std::unordered_map<std::size_t, std::size_t>& ends) {
  // the bytes the scan stops at: quotes and brackets (most of a report is digits, commas and spaces)
  static const auto special = [] {
    std::array<bool, 256> s{};
    for (unsigned char c : std::string_view("\"{}[]")) s[c] = true;
    return s;
  }();
  std::vector<std::size_t> open;  // positions of the open brackets
  const std::size_t n = t.size();
  const auto* u = reinterpret_cast<const unsigned char*>(t.data());
  for (std::size_t i = 0; i < n; ++i) {
    while (i < n && !special[u[i]]) ++i;
    if (i == n) break;
    const char c = t[i];
    if (c == '"') {
      i = string_end(t, i, n);
      if (i == npos) return false;
      --i;
    } else if (c == '{' || c == '[') {
      if (open.size() >= max_depth) return false;
      open.push_back(i);
    } else if (c == '}' || c == ']') {
      if (open.empty() || t[open.back()] != (c == '}' ? '{' : '[')) return false;
      if (i + 1 - open.back() >= kRecordBytes) ends.emplace(open.back(), i + 1);
      open.pop_back();
    }
  }
  return open.empty();
}

/// Index after the value that starts at t[i]: its recorded end, else (a container smaller than kRecordBytes,
/// a string or a scalar token) found by a short scan; npos when it does not end before e.
std::size_t value_end(std::string_view t, std::size_t i, std::size_t e,
                      const std::unordered_map<std::size_t, std::size_t>& ends) {
  if (i >= e) return npos;
  const char c = t[i];
  if (c == '"') return string_end(t, i, e);
  if (c == '{' || c == '[') {
    if (auto it = ends.find(i); it != ends.end()) return it->second <= e ? it->second : npos;
    int depth = 0;  // the scan has paired the brackets already
    for (; i < e; ++i) {
      const char d = t[i];
      if (d == '"') {
        i = string_end(t, i, e);
        if (i == npos) return npos;
        --i;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if ((d == '}' || d == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return npos;
  }
  std::size_t j = i;
  while (j < e && !is_ws(t[j]) && t[j] != ',' && t[j] != '}' && t[j] != ']') ++j;
  return j > i ? j : npos;
}

/// Values larger than `split` bytes (LoadOptions::split_bytes) are split into their members or elements,
/// each parsed on its own, so that simdjson's buffers (~4 bytes per structural character, 8-16 bytes per
/// value) stay the size of a part, not of the document, and values left out are never parsed.
struct Chunked {
  std::string_view text;
  const Skip& skip;
  const std::unordered_map<std::size_t, std::size_t>& ends;
  std::size_t split;
  simdjson::dom::parser parser{};

  /// The key whose literal is text[b, e) (quotes included), unescaped.
  std::string key(std::size_t b, std::size_t e) {
    const std::string_view raw = text.substr(b + 1, e - b - 2);
    const bool plain = raw.find('\\') == npos && std::none_of(raw.begin(), raw.end(), [](char c) {
                         return static_cast<unsigned char>(c) < 0x20;
                       });
    if (plain) {
      if (!simdjson::validate_utf8(raw.data(), raw.size())) throw Refused{};
      return std::string(raw);
    }
    simdjson::dom::element el;
    std::string_view out;
    if (parser.parse(text.data() + b, e - b, false).get(el) != simdjson::SUCCESS ||
        el.get_string().get(out) != simdjson::SUCCESS)
      throw Refused{};
    return std::string(out);
  }

  simdjson::dom::element parse(std::size_t b, std::size_t e) {
    simdjson::dom::element el;
    // the text is padded at its end, so a chunk inside it may be read up to SIMDJSON_PADDING bytes beyond
    if (parser.parse(text.data() + b, e - b, /*realloc_if_needed=*/false).get(el) != simdjson::SUCCESS)
      throw Refused{};
    return el;
  }

  /// The value text[b, e) (b at its first byte, e after its last); `at`: the rule that ends here, if any.
  json value(std::size_t b, std::size_t e, const std::vector<std::size_t>& live, std::size_t depth,
             const Rule* at = nullptr) {
    const char c = text[b];
    if (at && at->dense && e - b > split && c == '[')
      if (auto p = dense_rows(b, e)) return std::move(*p);
    if (e - b > split && c == '{') return object(b, e, live, depth);
    if (e - b > split && c == '[') return array(b, e, live, depth);
    const auto el = parse(b, e);
    return at ? apply(*at, el, skip, live, depth) : convert(el, skip, live, depth);
  }

  /// A large matrix packed row by row (each row parsed on its own); nullopt when it is not one.
  /// Calls fn(begin, end) for each element of the array text[b, e) (b at its '['); stops when fn returns
  /// false.
  template <typename F>
  void each_element(std::size_t b, std::size_t e, F&& fn) {
    std::size_t i = skip_ws(text, b + 1, e);
    if (i < e && text[i] == ']') {
      if (i + 1 != e) throw Refused{};
      return;
    }
    while (true) {
      const std::size_t ve = value_end(text, i, e, ends);
      if (ve == npos) throw Refused{};
      if (!fn(i, ve)) return;
      i = skip_ws(text, ve, e);
      if (i < e && text[i] == ',') {
        i = skip_ws(text, i + 1, e);
        continue;
      }
      if (i + 1 == e && text[i] == ']') return;
      throw Refused{};
    }
  }

  /// The rows of a large matrix, each parsed on its own (numbers and nulls); false when one is not such a
  /// row.
  bool each_row(std::size_t b, std::size_t e, const std::function<void(std::vector<double>&)>& fn) {
    std::vector<double> row;
    bool ok = true;
    each_element(b, e, [&](std::size_t i, std::size_t ve) {
      row.clear();
      ok = text[i] == '[' && row_cells(parse(i, ve), row);
      if (ok) fn(row);
      return ok;
    });
    return ok;
  }

  std::optional<json> dense_rows(std::size_t b, std::size_t e) {
    // written straight into the binary value: [rows, cols] (filled last), then the rows as they are parsed
    std::vector<std::uint8_t> bytes(2 * sizeof(std::uint64_t));
    std::uint64_t dims[2] = {0, 0};
    bool ragged = false;
    if (!each_row(b, e, [&](std::vector<double>& row) {
          if (dims[0] == 0) {
            dims[1] = row.size();
            bytes.reserve(bytes.size() + row.size() * row.size() * sizeof(double));  // square, as pairs'
          }
          ragged = ragged || row.size() != dims[1];
          const auto* p = reinterpret_cast<const std::uint8_t*>(row.data());
          bytes.insert(bytes.end(), p, p + row.size() * sizeof(double));
          ++dims[0];
        }))
      return std::nullopt;
    if (dims[0] == 0) return std::nullopt;  // [] stays an array
    if (ragged) {  // rows of different lengths: parsed again, each padded with NaN to the longest
      std::vector<std::vector<double>> cells;
      std::size_t cols = 0;
      each_row(b, e, [&](std::vector<double>& row) {
        cols = std::max(cols, row.size());
        cells.push_back(std::move(row));
      });
      std::vector<double> flat(cells.size() * cols, std::numeric_limits<double>::quiet_NaN());
      for (std::size_t r = 0; r < cells.size(); ++r)
        std::copy(cells[r].begin(), cells[r].end(), flat.begin() + static_cast<std::ptrdiff_t>(r * cols));
      return pack(cells.size(), cols, flat);
    }
    std::memcpy(bytes.data(), dims, sizeof dims);
    return json::binary(std::move(bytes), kDenseMatrixSubtype);
  }

  json object(std::size_t b, std::size_t e, const std::vector<std::size_t>& live, std::size_t depth) {
    json j = json::object();
    auto& m = j.get_ref<json::object_t&>();
    std::size_t i = skip_ws(text, b + 1, e);
    if (i < e && text[i] == '}') return i + 1 == e ? j : throw Refused{};
    std::vector<std::size_t> next;
    while (true) {
      if (i >= e || text[i] != '"') throw Refused{};
      const std::size_t ke = string_end(text, i, e);
      if (ke == npos) throw Refused{};
      std::string k = key(i, ke);
      i = skip_ws(text, ke, e);
      if (i >= e || text[i] != ':') throw Refused{};
      i = skip_ws(text, i + 1, e);
      const std::size_t ve = value_end(text, i, e, ends);
      if (ve == npos) throw Refused{};
      const Rule* at = nullptr;
      descend(skip, live, depth, &k, next, at);
      if (!at || at->dense) m[std::move(k)] = value(i, ve, next, depth + 1, at);  // last of duplicates wins
      i = skip_ws(text, ve, e);
      if (i < e && text[i] == ',') {
        i = skip_ws(text, i + 1, e);
        continue;
      }
      if (i + 1 == e && text[i] == '}') return j;
      throw Refused{};
    }
  }

  json array(std::size_t b, std::size_t e, const std::vector<std::size_t>& live, std::size_t depth) {
    json j = json::array();
    auto& v = j.get_ref<json::array_t&>();
    std::vector<std::size_t> next;  // "*" matches every element
    const Rule* at = nullptr;
    descend(skip, live, depth, nullptr, next, at);
    each_element(b, e, [&](std::size_t i, std::size_t ve) {
      if (!at || at->dense) v.push_back(value(i, ve, next, depth + 1, at));  // a skip rule: all left out
      return true;
    });
    return j;
  }
};

}  // namespace

std::size_t fast_parse_padding() {
  return simdjson::SIMDJSON_PADDING;
}

std::optional<json> fast_parse(std::string& text, const LoadOptions& opts, std::size_t max_depth) {
  Skip skip;
  for (const auto& p : opts.skip)
    if (!p.empty()) skip.push_back({&p, false});
  for (const auto& p : opts.dense)
    if (!p.empty()) skip.push_back({&p, true});
  simdjson::padded_string copy;
  std::string_view t(text);
  if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
    copy = simdjson::padded_string(text);
    t = std::string_view(copy.data(), copy.size());
  }
  std::unordered_map<std::size_t, std::size_t> ends;
  if (!scan(t, max_depth, ends)) return std::nullopt;
  const std::size_t b = skip_ws(t, 0, t.size());
  if (b >= t.size() || t[b] != '{') return std::nullopt;  // no report: nlohmann says why
  const std::size_t e = value_end(t, b, t.size(), ends);
  if (e == npos || skip_ws(t, e, t.size()) != t.size()) return std::nullopt;
  std::vector<std::size_t> live(skip.size());
  for (std::size_t s = 0; s < skip.size(); ++s) live[s] = s;
  try {
    Chunked c{t, skip, ends, opts.split_bytes};
    return c.value(b, e, live, 0);
  } catch (const Refused&) {
    return std::nullopt;
  }
}

}  // namespace fabcheck::report::detail
