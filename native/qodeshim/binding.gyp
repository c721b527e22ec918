# Linux only: stands in for qode (NodeGUI's patched Node) so the NodeGUI addon runs in plain Node.
{
  "targets": [
    {
      "target_name": "qodeshim",
      "sources": ["qodeshim.cc"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-fPIC", "<!@(pkg-config --cflags glib-2.0 Qt6Core)"],
      "libraries": ["<!@(pkg-config --libs glib-2.0 Qt6Core)"]
    }
  ]
}
