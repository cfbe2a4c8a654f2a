// Package clitest holds the helpers the tests of ptc's packages share:
// texts that would command a terminal (HostileTexts) and the check that
// output holds none of them (CheckTermSafe), and a file writer. Only
// tests import it.
package clitest
