# Installation (GNUInstallDirs) and the Debian package (CPack), included by the top CMakeLists.txt.
#
#   cmake --install build --prefix /opt/campaign/0.1.0     # a relocatable tree
#   cpack --config build/CPackConfig.cmake                  # campaign_<version>_amd64.deb (prefix /usr)
#
# <prefix>/bin/campaign, its local executor's monitor <prefix>/libexec/campaign/campaign-monitor and
# the data it reads under <prefix>/share/campaign/ (both found relative to the binary,
# local/process.cpp, spec/library.cpp), README.md and ARCHITECTURE.md under <prefix>/share/doc/campaign/, and
# modulefiles for Lmod (<version>.lua) and Environment Modules (<version>, Tcl) under
# <prefix>/share/modulefiles/campaign/.
include(GNUInstallDirs)
# `cmake --install` and cpack install what is built (`--target campaign` is enough), without first
# building every test and benchmark.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CAMPAIGN_DATA_DIR ${CMAKE_INSTALL_DATADIR}/campaign)
# The binary finds its data through this relative path, so the prefix can be moved.
file(RELATIVE_PATH CAMPAIGN_DATA_FROM_BIN /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CAMPAIGN_DATA_DIR})
set_property(SOURCE orchestrator/spec/library.cpp APPEND PROPERTY COMPILE_DEFINITIONS
             CAMPAIGN_DATA_FROM_BIN="${CAMPAIGN_DATA_FROM_BIN}")

install(TARGETS campaign RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The local executor's monitor, a program only campaign starts, found relative to the binary too.
set(CAMPAIGN_HELPER_DIR ${CMAKE_INSTALL_LIBEXECDIR}/campaign)
file(RELATIVE_PATH CAMPAIGN_HELPERS_FROM_BIN /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CAMPAIGN_HELPER_DIR})
set_property(SOURCE orchestrator/local/process.cpp APPEND PROPERTY COMPILE_DEFINITIONS
             CAMPAIGN_HELPERS_FROM_BIN="${CAMPAIGN_HELPERS_FROM_BIN}")
install(TARGETS campaign-monitor RUNTIME DESTINATION ${CAMPAIGN_HELPER_DIR})
# Run directories and Python caches left in the source tree are not data.
install(DIRECTORY systems templates collectors campaigns workloads DESTINATION ${CAMPAIGN_DATA_DIR}
        PATTERN runs EXCLUDE PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES README.md ARCHITECTURE.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Modulefiles: Lmod reads <version>.lua (and prefers it), Environment Modules <version> (Tcl);
# each finds the prefix CAMPAIGN_MODULE_DEPTH levels above itself.
set(CAMPAIGN_MODULE_DIR ${CMAKE_INSTALL_DATADIR}/modulefiles/campaign)
string(REGEX MATCHALL "/" slashes "${CAMPAIGN_MODULE_DIR}/${PROJECT_VERSION}")
list(LENGTH slashes CAMPAIGN_MODULE_DEPTH)
math(EXPR CAMPAIGN_MODULE_DEPTH "${CAMPAIGN_MODULE_DEPTH} + 1")
configure_file(packaging/modulefiles/campaign.lua.in modulefiles/${PROJECT_VERSION}.lua @ONLY)
configure_file(packaging/modulefiles/campaign.tcl.in modulefiles/${PROJECT_VERSION} @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/modulefiles/${PROJECT_VERSION}.lua ${CMAKE_BINARY_DIR}/modulefiles/${PROJECT_VERSION}
        DESTINATION ${CAMPAIGN_MODULE_DIR})

# The Debian package: campaign_<version>_<arch>.deb, installed under /usr. Its library dependencies
# come from dpkg-shlibdeps (package dpkg-dev); the programs jobs and reports use are recommended.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME campaign)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "campaign developers <campaign@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HPC benchmark campaigns: plan, submit, follow, collect, report")
set(CPACK_PACKAGE_DESCRIPTION
    "campaign expands a declarative YAML campaign (a matrix of rank counts, data sets, partitions)\n"
    "into job scripts for Slurm, LSF or this machine, submits them, follows them to the end, keeps\n"
    "every attempt in an SQLite catalog, collects outputs, writes scaling tables and plots, and\n"
    "follows performance across commits (history, a static site).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "gnuplot-nox, git, lmod | environment-modules, python3, python3-torch, python3-numpy, python3-yaml")
include(CPack)
