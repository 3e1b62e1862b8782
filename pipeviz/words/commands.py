"""The command line, figure export and the standalone page."""

STRINGS = {
    # pipeviz/cli.py
    "cli.model_needed": ("{flags} describe a model: give --model (a preset, or custom)",
                         "{flags} 描述的是模型：请给出 --model（预设之一，或 custom）"),
    "cli.custom_needs": ("--model custom needs {fields} (--layers, --hidden, --heads, --vocab)",
                         "--model custom 需要 {fields}（--layers、--hidden、--heads、--vocab）"),
    # pipeviz/compare.py
    "compare.too_big": (
        "comparing every schedule at P={P}, m={m} times {n} ops over {rows} rows, more than the {max} pipeviz "
        "compares quickly; use a smaller P or m",
        "在 P={P}、m={m} 下比较所有调度要计算 {rows} 行共 {n} 个操作，超过了 pipeviz 能快速比较的 {max} 个；"
        "请用更小的 P 或 m",
    ),
    "compare.none": (
        "no schedule runs at P={P}, m={m}: {first}",
        "P={P}、m={m} 时没有可运行的调度：{first}",
    ),
    # pipeviz/figure.py
    "figure.format": ("cannot tell the format of {path}: name it with one of {valid}",
                      "看不出 {path} 的格式：文件名请以 {valid} 之一结尾"),
    "figure.width": ("--width {width} is outside {low}..{high} pixels", "--width {width} 超出了 {low}..{high} 像素"),
    "figure.no_selenium": ("figure export needs selenium: pip install -r requirements.txt",
                           "导出图片需要 selenium：pip install -r requirements.txt"),
    "figure.no_browser": (
        "figure export needs chromium and chromium-driver (Debian: apt-get install chromium chromium-driver), "
        "or PIPEVIZ_CHROMIUM and PIPEVIZ_CHROMEDRIVER set to them",
        "导出图片需要 chromium 和 chromium-driver（Debian：apt-get install chromium chromium-driver），"
        "或用 PIPEVIZ_CHROMIUM 和 PIPEVIZ_CHROMEDRIVER 指明它们的位置",
    ),
    "figure.browser_failed": ("the headless browser did not start: {why}", "无头浏览器没能启动：{why}"),
    "figure.empty": ("the browser exported nothing to {path}", "浏览器没有导出任何内容到 {path}"),
    "figure.write": ("cannot write {path}: {why}", "无法写入 {path}：{why}"),
    # pipeviz/page.py
    "page.G": ("the explorer shows the group size Megatron-core would pick, so -G {G} cannot be honoured; "
               "leave out -G, or use show or export to time another group size",
               "浏览界面显示 Megatron-core 会选的组大小，无法使用 -G {G}；请去掉 -G，或用 show / export 计算其他组大小"),
    "page.range": ("{key}={value} is outside the explorer's range {valid}", "{key}={value} 超出了浏览器界面的范围 {valid}"),
}
