#pragma once
// Calendar dates as the rules and the command line write them (YYYY-MM-DD, proleptic Gregorian, UTC),
// for waiver expiry (docs/user-guide.md "Rules"): no clock here; the caller says what today is.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neuron_gate {

// Days since 1970-01-01 of a date written exactly YYYY-MM-DD (year 0000-9999, a real month and day,
// 29 February only in leap years); nullopt for anything else ("2026-02-30", "2026-1-01", " 2026-01-01").
std::optional<std::int64_t> parse_iso_date(std::string_view text);

// The UTC date YYYY-MM-DD of a Unix time in seconds (as SOURCE_DATE_EPOCH gives it).
std::string iso_date_from_unix_seconds(std::int64_t seconds);

}  // namespace neuron_gate
