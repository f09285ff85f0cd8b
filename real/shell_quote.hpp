#pragma once
// Quoting for the POSIX shell that runs a remote command: ssh hands the remote side ONE string,
// which the login shell parses again, so every word geotrain puts there is quoted here.
#include <string>
#include <vector>

namespace geotrain::real {

// `word` as one shell word: unchanged when it holds only characters no shell treats specially
// ([A-Za-z0-9_./:=@%+,-], not empty), else in single quotes with each ' written as '\''.
std::string shell_quote(const std::string& word);

// The words quoted and joined by spaces: a command line the remote shell splits back into argv.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace geotrain::real
