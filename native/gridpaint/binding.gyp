# The terminal grid painter: links against the Qt the NodeGUI addon uses. Linux: the system Qt 6
# found by pkg-config. macOS: NodeGUI's downloaded Qt frameworks, whose folder scripts/setup.mjs
# passes in TERMIO_QT_DIR; the addon finds them relative to itself first, so a copied app bundle
# that keeps the checkout's layout (native/ beside node_modules/) works.
{
  "variables": {
    "qt_dir%": "<!(node -p \"process.env.TERMIO_QT_DIR || ''\")",
    "qt_lib_from_addon%": "<!(node -p \"require('path').relative(require('path').resolve('build', 'Release'), require('path').resolve(process.env.TERMIO_QT_DIR || '.', 'lib'))\")"
  },
  "targets": [
    {
      "target_name": "gridpaint",
      "sources": ["gridpaint.cc"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "conditions": [
        ["OS=='linux'", {
          "cflags_cc": ["-std=c++17", "-fPIC", "-O2", "<!@(pkg-config --cflags Qt6Widgets)"],
          "libraries": ["<!@(pkg-config --libs Qt6Widgets)"]
        }],
        ["OS=='mac'", {
          "xcode_settings": {
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
            "GCC_ENABLE_CPP_RTTI": "YES",
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "MACOSX_DEPLOYMENT_TARGET": "12.0",
            "OTHER_CPLUSPLUSFLAGS": ["-O2", "-F<(qt_dir)/lib"],
            "OTHER_LDFLAGS": ["-F<(qt_dir)/lib", "-framework", "QtCore", "-framework", "QtGui", "-framework", "QtWidgets",
                              "-Wl,-rpath,@loader_path/<(qt_lib_from_addon)", "-Wl,-rpath,<(qt_dir)/lib"]
          },
          "include_dirs": [
            "<(qt_dir)/lib/QtCore.framework/Headers",
            "<(qt_dir)/lib/QtGui.framework/Headers",
            "<(qt_dir)/lib/QtWidgets.framework/Headers"
          ]
        }]
      ]
    }
  ]
}
