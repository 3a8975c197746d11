// The escaping module (src/report/escape.hpp): one function per output format, each tested on the
// hostile strings of issue 11 / issue 15 (control characters, Unicode line breaks, invalid UTF-8,
// noncharacters, markup of the format, workflow commands).

#include "report/escape.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace neuron_gate;

namespace {

const std::string k_wj = "\xE2\x81\xA0";  // U+2060 WORD JOINER

}  // namespace

TEST_SUITE_BEGIN("report");

TEST_CASE("valid_utf8 replaces each maximal invalid subpart with U+FFFD (Unicode 15 section 3.9) and counts them") {
  std::size_t replaced = 0;
  CHECK(valid_utf8("abc µs → ✓ 😀", &replaced) == "abc µs → ✓ 😀");
  CHECK(replaced == 0);
  // a lone continuation byte, a cut 3-byte sequence at the end, an overlong '/', a UTF-16 surrogate,
  // a code point above U+10FFFF and 0xFF.
  CHECK(valid_utf8(std::string("a\x80z"), &replaced) == "a\xEF\xBF\xBDz");
  CHECK(valid_utf8(std::string("x\xE2\x82")) == "x\xEF\xBF\xBD");  // one cut sequence, one U+FFFD
  CHECK(valid_utf8(std::string("\xC0\xAF")) == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(valid_utf8(std::string("\xED\xA0\x80")) == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(valid_utf8(std::string("\xF4\x90\x80\x80")) == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  replaced = 0;
  CHECK(valid_utf8(std::string("\xFF\xFE ok"), &replaced) == "\xEF\xBF\xBD\xEF\xBF\xBD ok");
  CHECK(replaced == 2);
  // Control characters are data for JSON: kept.
  CHECK(valid_utf8("a\nb\x1b") == "a\nb\x1b");
}

TEST_CASE("sanitize_text: controls as Control Pictures, Unicode line breaks as ␤, U+FFFE/U+FFFF replaced") {
  CHECK(sanitize_text("a\rb\nc\td\x1b[31m\x7f") == "a␍b␊c␉d␛[31m␡");
  CHECK(sanitize_text(std::string("x\0y", 3)) == "x␀y");
  CHECK(sanitize_text("l\xE2\x80\xA8p\xE2\x80\xA9n\xC2\x85") == "l␤p␤n␤");
  CHECK(sanitize_text("\xC2\x9B"
                      "c1") == "\xEF\xBF\xBD"
                               "c1");  // C1 CSI
  CHECK(sanitize_text("\xEF\xBF\xBE\xEF\xBF\xBF") == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(sanitize_text("aten::mm µs → ✓") == "aten::mm µs → ✓");
  // Idempotent: a sanitized string stays as it is.
  const std::string once = sanitize_text(std::string("\r\n\xFF\xEF\xBF\xBE"));
  CHECK(sanitize_text(once) == once);
}

TEST_CASE("escape_markdown makes headings, links, images, HTML, comments, mentions and autolinks inert") {
  CHECK(escape_markdown("aten::mm") == "aten::mm");
  CHECK(escape_markdown("x\r## ✅ PASS <!--") == "x␍\\#\\# ✅ PASS &lt;\\!--");
  CHECK(escape_markdown("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;");
  CHECK(escape_markdown("[link](http://x)") == "\\[link\\](http:/" + k_wj + "/x)");
  CHECK(escape_markdown("![i](y)") == "\\!\\[i\\](y)");
  CHECK(escape_markdown("@user") == "@" + k_wj + "user");
  CHECK(escape_markdown("see #12 and www.x.org") == "see \\#" + k_wj + "12 and www" + k_wj + ".x.org");
  // Issue 39 item 4: GitHub renders ":white_check_mark:" as ✅ and links "GH-3" to issue 3, escaped or not.
  CHECK(escape_markdown("m :white_check_mark: GH-3") == "m :" + k_wj + "white_check_mark: GH" + k_wj + "-3");
  CHECK(escape_markdown("gh-12, :+1: and :tada:") == "gh" + k_wj + "-12, :" + k_wj + "+1: and :" + k_wj + "tada:");
  CHECK(escape_markdown("aten::mm 12:30 SIGH-3 GH-x a:b") == "aten::mm 12:30 SIGH-3 GH-x a:b");  // none of them
  CHECK(escape_markdown("a|b`c*d_e~f$g\\h&i _x") == "a\\|b\\`c\\*d_e\\~f\\$g\\\\h&amp;i \\_x");
  CHECK(escape_markdown("- item") == "\\- item");
  CHECK(escape_markdown("---") == "\\---");
  CHECK(escape_markdown("1. one") == "1\\. one");
  CHECK(escape_markdown("1.25 ms") == "1.25 ms");
  CHECK(escape_markdown("a\xE2\x80\xA8"
                        "b") == "a␤b");
  CHECK(escape_markdown(std::string("bad\xFF")) == "bad\xEF\xBF\xBD");
}

TEST_CASE("markdown_code: a fence longer than any backtick run, pipes escaped in table cells only") {
  CHECK(markdown_code("aten::mm") == "`aten::mm`");
  CHECK(markdown_code("a`b") == "``a`b``");
  CHECK(markdown_code("`x") == "`` `x ``");
  CHECK(markdown_code("a``b`") == "``` a``b` ```");
  CHECK(markdown_code("a|b", true) == "`a\\|b`");
  CHECK(markdown_code("a|b", false) == "`a|b`");
  CHECK(markdown_code("x\ny") == "`x␊y`");
  CHECK(markdown_code("") == "` `");
}

TEST_CASE("escape_html and escape_xml: the five markup characters as entities, nothing XML 1.0 forbids") {
  CHECK(escape_html("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(escape_html("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;");
  CHECK(escape_xml(std::string("n\xEF\xBF\xBE\x01\xFF")) == "n\xEF\xBF\xBD␁\xEF\xBF\xBD");
  CHECK(escape_xml("µs → ✓") == "µs → ✓");
}

TEST_CASE("workflow command escaping: data cannot start a command, properties cannot end the list") {
  CHECK(escape_workflow_data("50% of x\n::stop-commands::tok") == "50%25 of x␊::stop-commands::tok");
  CHECK(escape_workflow_data("a\rb") == "a␍b");
  CHECK(escape_workflow_property("aten::mm, x%") == "aten%3A%3Amm%2C x%25");
  CHECK(escape_workflow_data(std::string("\xFF")) == "\xEF\xBF\xBD");
}

TEST_CASE("escape_terminal removes escape sequences and line breaks") {
  CHECK(escape_terminal("name\n::stop-commands::x\x1b]0;t\x07") == "name␊::stop-commands::x␛]0;t␇");
  CHECK(escape_terminal("\xC2\x9B"
                        "2J") == "\xEF\xBF\xBD"
                                 "2J");
  // Bidirectional overrides, embeddings, isolates and marks cannot reorder the line (Trojan Source).
  CHECK(escape_terminal("a\xE2\x80\xAE"
                        "cba\xE2\x80\xAC"
                        "d") == "a\xEF\xBF\xBD"
                                "cba\xEF\xBF\xBD"
                                "d");                                                  // RLO, PDF
  CHECK(escape_terminal("\xE2\x81\xA6x\xE2\x81\xA9") == "\xEF\xBF\xBDx\xEF\xBF\xBD");  // LRI, PDI
  CHECK(escape_terminal("\xE2\x80\x8F\xD8\x9C\xE2\x80\xAA") ==
        "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // RLM, ALM, LRE
  CHECK(escape_markdown("\xE2\x80\xAE") == "\xEF\xBF\xBD");
  CHECK(escape_html("\xE2\x81\xA7") == "\xEF\xBF\xBD");
  // Right-to-left text itself is data and stays (Hebrew alef, Arabic alef).
  CHECK(escape_terminal("\xD7\x90\xD8\xA7") == "\xD7\x90\xD8\xA7");
}

TEST_CASE("prose: data pieces are escaped per format, the report's own code spans kept") {
  const std::string line =
      "Op " + prose_code("a`<b>|@u") + " with value " + prose_text("[x](http://y) <!--") + "; rerun with `--flag`.";
  CHECK(prose_markdown(line) ==
        "Op ``a`<b>|@u`` with value \\[x\\](http:/" + k_wj + "/y) &lt;\\!--; rerun with `--flag`.");
  CHECK(prose_html(line) ==
        "Op <code>a`&lt;b&gt;|@u</code> with value [x](http://y) &lt;!--; rerun with <code>--flag</code>.");
  CHECK(prose_plain(line) == "Op `a`<b>|@u` with value [x](http://y) <!--; rerun with `--flag`.");
  // Data cannot forge the markers: control characters are sanitized first.
  CHECK(prose_plain(prose_code(std::string("a\x02\x03z"))) == "`a␂␃z`");
}

TEST_SUITE_END();
