#include "report/number_format.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

namespace neuron_gate {
namespace {

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string text = buffer;
  if (text == "-0" || text.rfind("-0.", 0) == 0) {
    // "-0.00" reads as a change; print plain zero.
    bool all_zero = text.find_first_not_of("-0.") == std::string::npos;
    if (all_zero) {
      text.erase(0, 1);
    }
  }
  return text;
}

// An integer with thousands separators: 1100 -> "1,100".
std::string grouped(double value) {
  std::string digits = fixed(std::fabs(value), 0);
  for (std::size_t i = digits.size(); i > 3; i -= 3) {
    digits.insert(i - 3, 1, ',');
  }
  return (value < 0 && digits.find_first_not_of("0,") != std::string::npos ? "-" : "") + digits;
}

}  // namespace

std::string format_significant(std::optional<double> value, int significant) {
  if (!value || !std::isfinite(*value)) {
    return "–";
  }
  if (*value == 0.0) {
    return "0";
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(*value))));
  const int decimals = std::max(0, significant - 1 - magnitude);
  return fixed(*value, decimals);
}

std::string format_number(std::optional<double> value, int significant) {
  std::string text = format_significant(value, significant);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') {
      text.pop_back();
    }
    if (text.back() == '.') {
      text.pop_back();
    }
  }
  return text;
}

std::string format_duration_us(std::optional<double> microseconds) {
  if (!microseconds || !std::isfinite(*microseconds)) {
    return "–";
  }
  const double size = std::fabs(*microseconds);
  if (size == 0.0) {
    return "0 µs";
  }
  if (size >= 1e6) {
    return fixed(*microseconds / 1e6, 2) + " s";
  }
  if (size >= 1e3) {
    return fixed(*microseconds / 1e3, 2) + " ms";
  }
  if (size >= 100) {
    return fixed(*microseconds, 0) + " µs";
  }
  if (size >= 10) {
    return fixed(*microseconds, 1) + " µs";
  }
  return fixed(*microseconds, 2) + " µs";
}

std::string format_value(std::optional<double> value, const std::string& unit) {
  // Times get a unit chosen per value (11.0 µs, not 0.01102 ms; issue 16 item 2).
  static const std::pair<const char*, double> k_time_units[] = {
      {"us", 1.0}, {"µs", 1.0}, {"ns", 1e-3}, {"ms", 1e3}, {"s", 1e6}};
  for (const auto& [name, to_us] : k_time_units) {
    if (unit == name) {
      return format_duration_us(value ? std::optional<double>(*value * to_us) : std::nullopt);
    }
  }
  if (!value) {
    return "–";
  }
  return format_significant(value, 4) + " " + unit;
}

std::string format_ratio(std::optional<double> ratio) {
  if (!ratio || !std::isfinite(*ratio)) {
    return "–";
  }
  return fixed(*ratio, 3) + "x";
}

std::string format_ratio_interval(std::optional<double> low, std::optional<double> high) {
  if (!low || !high || !std::isfinite(*low) || !std::isfinite(*high)) {
    return "–";
  }
  return "[" + fixed(*low, 3) + ", " + fixed(*high, 3) + "]";
}

std::string format_change_interval(std::optional<double> low, std::optional<double> high) {
  if (!low || !high || !std::isfinite(*low) || !std::isfinite(*high)) {
    return "–";
  }
  std::string first = format_change(low);
  first.pop_back();  // the one '%' goes after the second bound
  return first + "…" + format_change(high);
}

std::string format_change(std::optional<double> ratio) {
  if (!ratio || !std::isfinite(*ratio)) {
    return "–";
  }
  const double percent = (*ratio - 1.0) * 100.0;
  if (std::fabs(percent) >= 999.95) {
    return (percent >= 0 ? "+" : "") + grouped(percent) + "%";
  }
  return (percent >= 0 ? "+" : "") + fixed(percent, 1) + "%";
}

std::string format_change_with_ci(std::optional<double> ratio, std::optional<double> low, std::optional<double> high) {
  if (!ratio || !std::isfinite(*ratio)) {
    return "–";
  }
  const std::string interval = format_change_interval(low, high);
  return format_change(ratio) + (interval == "–" ? std::string() : " (90% CI " + interval + ")");
}

std::string format_percent(std::optional<double> fraction) {
  if (!fraction || !std::isfinite(*fraction)) {
    return "–";
  }
  return format_number(*fraction * 100.0) + "%";
}

std::string format_p(std::optional<double> p) {
  if (!p || !std::isfinite(*p)) {
    return "–";
  }
  if (*p >= 0.001 || *p == 0.0) {
    return format_significant(p, 3);
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1e", *p);
  return buffer;
}

std::string format_value(std::optional<double> value, const std::string& unit, std::optional<double> resolution) {
  if (value && resolution && *value < *resolution) {
    return "< " + (unit == "us" ? format_number(resolution) + " µs" : format_value(resolution, unit));
  }
  return format_value(value, unit);
}

}  // namespace neuron_gate
