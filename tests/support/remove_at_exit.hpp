#pragma once
// Temporary test folders are removed when the test process exits, so repeated test runs leave
// nothing behind in the temp folder. Forked children (simulations run one per process) inherit
// the list but never remove: only the process that registered a folder does.
#include <string>

namespace geotrain::test {

void remove_at_exit(const std::string& path);

// The temp folder's path for `name`, unique to this process (<temp>/<name>-<pid>): ctest runs
// test cases as parallel processes, and a fixed name would let one process's exit remove the
// folder another still uses. Not created; registered with remove_at_exit.
std::string process_temp_path(const std::string& name);

}  // namespace geotrain::test
