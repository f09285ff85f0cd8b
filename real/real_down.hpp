#pragma once
// `geotrain real down` and `real status`: per host, read what apply recorded there
// (host_state.hpp) and undo exactly that, or report it. Neither needs the scenario: the host
// itself says what was done, so both work after the controller that applied crashed.
#include <functional>
#include <string>
#include <vector>

#include "real/hosts_file.hpp"
#include "real/ssh_client.hpp"

namespace geotrain::real {

using Say = std::function<void(const std::string&)>;  // one line of progress for the user

// Undoes one host; returns the lines the remote script printed ("nothing to undo" when no state
// was recorded). Throws HostError when the host cannot be reached.
std::vector<std::string> down_host(const HostSpec& host, const SshOptions& ssh);

// Every host, each even when another fails; returns the number of hosts that failed.
int real_down(const HostsFile& hosts, const SshOptions& ssh, const Say& say);

// One line per host: reachable, state recorded, root qdisc, delayer, workers. Returns the number
// of hosts that could not be reached.
int real_status(const HostsFile& hosts, const SshOptions& ssh, const Say& say);

}  // namespace geotrain::real
