# Install rules and the Debian package (CPack).
#   cmake --install build --prefix /opt/geotrain    binaries in bin/, bundled files in share/geotrain
#   cmake --build build --target package             build/geotrain_<version>_amd64.deb
# The installed geotrain finds geotrain-worker and geotrain-delayer beside itself (bin/) and its
# scenarios and plot scripts in ../share/geotrain (sim/common/data_dir.hpp): no source tree needed.
include(GNUInstallDirs)

install(TARGETS geotrain geotrain-delayer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(GEOTRAIN_WITH_TORCH)
  install(TARGETS geotrain-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
set(GEOTRAIN_DATA_DESTINATION ${CMAKE_INSTALL_DATADIR}/geotrain)
install(DIRECTORY ${GEOTRAIN_SOURCE_DIR}/scenarios DESTINATION ${GEOTRAIN_DATA_DESTINATION})
install(DIRECTORY ${GEOTRAIN_SOURCE_DIR}/plots DESTINATION ${GEOTRAIN_DATA_DESTINATION}
        FILES_MATCHING PATTERN "*.py" PATTERN "README.md")
install(FILES ${GEOTRAIN_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${GEOTRAIN_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME geotrain)
set(CPACK_PACKAGE_VENDOR "geotrain")
set(CPACK_PACKAGE_CONTACT "geotrain developers <geotrain@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Simulator and emulation testbed for decentralized training over slow networks")
set(CPACK_PACKAGE_DESCRIPTION
    "geotrain predicts, from one scenario file, how fast a decentralized training run goes over a\n"
    "given network (SimGrid), assigns pipeline stages to devices, and emulates the run with real\n"
    "LibTorch training in network namespaces shaped with tc.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY geotrain)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # geotrain_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://localhost/geotrain")
# The shared libraries the binaries link (SimGrid, yaml-cpp, fmt, LibTorch, libnetfilter-queue,
# ...) are found by dpkg-shlibdeps; the programs geotrain runs are named by hand: ip/tc (iproute2),
# iptables, sysctl (procps), modprobe (kmod), nsenter/setpriv (util-linux), ping, ssh for real/,
# python3 with matplotlib for the plots.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "iproute2, iptables, procps, kmod, util-linux, iputils-ping, openssh-client, python3, python3-matplotlib")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "iperf3, slurm-wlm")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # quicker to build than xz; the package test builds it
include(CPack)
