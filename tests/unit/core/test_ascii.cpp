// Text that fabcheck takes from foreign files and writes where it has a meaning of its own: a terminal, a
// hostfile (core/ascii.hpp).
#include <gtest/gtest.h>

#include <string>

#include "fabcheck/core/ascii.hpp"

namespace core = fabcheck::core;

TEST(Ascii, TerminalSafeDropsControlBytesButKeepsLinesTabsAndUtf8) {
  // ESC ] 0 ; title BEL retitles a terminal window; ESC [ 2 J clears the screen; CR overwrites a line.
  EXPECT_EQ(core::terminal_safe("a\x1b]0;pwned\x07"
                                "b\x1b[2Jc\rd\x7f\n\te µs"),
            "a]0;pwnedb[2Jcd\n\te µs");
  EXPECT_EQ(core::terminal_safe(""), "");
}

TEST(Ascii, HostNamesAreWhatAHostfileLineCanHold) {
  for (const char* ok : {"n1", "node-01.cluster.example", "gpu_rack3-07", "a"})
    EXPECT_TRUE(core::is_host_name(ok)) << ok;
  for (const char* bad : {"", "-n1", "n1 slots=64", "n1\nn2", "n1\tx", "n1=2", "nø"})
    EXPECT_FALSE(core::is_host_name(bad)) << bad;
  EXPECT_TRUE(core::is_host_name(std::string(253, 'a')));
  EXPECT_FALSE(core::is_host_name(std::string(254, 'a')));
}
