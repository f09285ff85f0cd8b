// geotrain plot <results dir>: runs plots/plot_all.py (matplotlib, /usr/bin/python3) on a results
// folder; PNGs land next to the data they draw.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "apps/child_process.hpp"
#include "apps/commands.hpp"
#include "sim/common/data_dir.hpp"
#include "sim/common/error.hpp"

namespace geotrain::cli {

namespace {

struct PlotOptions {
  std::string dir;
  std::string python = "/usr/bin/python3";  // the interpreter matplotlib is installed for
  std::string plots = data_dir() + "/plots";
};

int run_plot(const PlotOptions& o) {
  if (!std::filesystem::is_directory(o.dir))
    throw InputError(fmt::format("{}: not a directory (expected a results folder)", o.dir));
  const std::string script = o.plots + "/plot_all.py";
  if (!std::filesystem::exists(script))
    throw InputError(fmt::format("--plots {}: no plot_all.py there (expected geotrain's plots/ folder)", o.plots));
  run_child(o.python, {script, o.dir});
  return 0;
}

}  // namespace

void add_plot_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("plot", "draw the plots of a results folder (PNGs next to the data)");
  auto o = std::make_shared<PlotOptions>();
  cmd->add_option("dir", o->dir, "results folder (a validation suite, a comparison, a run)")->required();
  cmd->add_option("--python", o->python, "python with matplotlib (default /usr/bin/python3)");
  cmd->add_option("--plots", o->plots, "folder of the plot scripts");
  cmd->callback([&action, o] { action = [o] { return run_plot(*o); }; });
}

}  // namespace geotrain::cli
