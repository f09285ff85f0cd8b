// geotrain emu guard <cluster> --owner PID:START:PIDNS --owner-fd 3 [--ready-fd 4] [--state-dir D]
// Hidden: started by the owner of a cluster (emulate, a temporary link test, `emu up` while it
// builds), never by people. Waits for the owner to end and removes the cluster if the owner
// left it behind (emu/net/cluster_guard.hpp).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "apps/commands.hpp"
#include "emu/net/cluster_guard.hpp"

namespace geotrain::cli {

namespace {

struct GuardArgs {
  std::string cluster, owner, state_dir;
  int owner_fd = -1, ready_fd = -1;
};

int run_guard(const GuardArgs& a) {
  const emu::ProcessIdentity owner = emu::parse_identity(a.owner);
  const std::string line = emu::guard_cluster(a.cluster, owner, a.owner_fd, a.ready_fd, emu::StateStore(a.state_dir));
  if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
  return 0;
}

}  // namespace

void add_emu_guard_command(CLI::App* emu_cmd, Action& action) {
  auto a = std::make_shared<GuardArgs>();
  auto* guard = emu_cmd->add_subcommand("guard", "removes an owned cluster when its owner dies (internal)");
  guard->group("");  // hidden from --help
  guard->add_option("cluster", a->cluster)->required();
  guard->add_option("--owner", a->owner)->required();
  guard->add_option("--owner-fd", a->owner_fd)->required();
  guard->add_option("--ready-fd", a->ready_fd);
  guard->add_option("--state-dir", a->state_dir);
  guard->callback([&action, a] { action = [a] { return run_guard(*a); }; });
}

}  // namespace geotrain::cli
