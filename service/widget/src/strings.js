// UI strings per language. Answer text comes from the server in the answer's language;
// these are only the widget's own labels. Keys must exist in both tables (tests check it).
var STRINGS = {
  en: {
    title: "GPU Deployment Advisor",
    open: "Open the GPU Deployment Advisor chat",
    close: "Close chat",
    reset: "New conversation",
    send: "Send",
    stop: "Stop",
    placeholder: "Ask about GPUs, sizing, cloud or on-prem…",
    input_label: "Your question (Enter sends, Shift+Enter adds a line)",
    welcome: "Ask which GPUs and how many, cloud or on-prem, or what to check before a run. Answers cite their sources.",
    you: "You",
    advisor: "Advisor",
    sources: "Sources",
    follow_ups: "Follow-up questions",
    thinking: "Looking it up…",
    computing: "Computing",
    stopped: "Stopped.",
    error: "The answer could not be loaded.",
    error_network: "The advisor could not be reached. Check your connection.",
    error_refused: "This site is not allowed to use the advisor.",
    rate_limited: "Too many questions in a short time. Try again in {s} s.",
    retry: "Retry",
    copy: "Copy",
    copied: "Copied",
    helpful: "Helpful",
    not_helpful: "Not helpful",
    thanks: "Thanks for the feedback.",
    answer_ready: "Answer ready",
    work: "How this was computed",
    inputs: "Inputs",
    formulas: "Formulas",
    assumptions: "Assumptions",
    more_formulas: "{n} more steps in the tool output",
    value: "Value",
    provenance: "Source",
    alternatives: "Alternatives",
    chart_title: "Cost vs time of the alternatives",
    hours: "Hours",
    cost: "Cost",
    gpus: "GPUs",
    layout: "Nodes",
    node_layout: "{n} × {g} GPUs",
    per_gpu_memory: "Memory per GPU",
    precision: "Precision",
    sharding: "Sharding",
    time: "Time",
    deployment: "Deployment",
    cpu: "CPU",
    ram: "RAM per node",
    storage: "Storage",
    network: "Network",
    instance: "Instance",
    meets_deadline: "meets the deadline",
    misses_deadline: "misses the deadline",
    conversation_reset: "Started a new conversation."
  },
  "zh-CN": {
    title: "GPU 部署顾问",
    open: "打开 GPU 部署顾问对话",
    close: "关闭对话",
    reset: "新对话",
    send: "发送",
    stop: "停止",
    placeholder: "问问 GPU 选型、算力估算、上云还是自建……",
    input_label: "你的问题（Enter 发送，Shift+Enter 换行）",
    welcome: "可以问用什么 GPU、要多少张、上云还是自建，或训练前要检查什么。回答都会注明来源。",
    you: "你",
    advisor: "顾问",
    sources: "来源",
    follow_ups: "接着可以问",
    thinking: "正在查找……",
    computing: "正在计算",
    stopped: "已停止。",
    error: "回答没有加载成功。",
    error_network: "无法连接到顾问服务，请检查网络。",
    error_refused: "此网站未被允许使用顾问服务。",
    rate_limited: "短时间内提问太多，请 {s} 秒后再试。",
    retry: "重试",
    copy: "复制",
    copied: "已复制",
    helpful: "有帮助",
    not_helpful: "没帮助",
    thanks: "感谢反馈。",
    answer_ready: "回答已生成",
    work: "计算过程",
    inputs: "输入",
    formulas: "公式",
    assumptions: "假设",
    more_formulas: "另有 {n} 步见工具输出",
    value: "值",
    provenance: "来源",
    alternatives: "备选方案",
    chart_title: "备选方案的成本与时间",
    hours: "小时",
    cost: "成本",
    gpus: "GPU 数",
    layout: "节点",
    node_layout: "{n} 台 × 每台 {g} 卡",
    per_gpu_memory: "每卡显存",
    precision: "精度",
    sharding: "切分方式",
    time: "时间",
    deployment: "部署方式",
    cpu: "CPU",
    ram: "每节点内存",
    storage: "存储",
    network: "网络",
    instance: "实例",
    meets_deadline: "满足期限",
    misses_deadline: "不满足期限",
    conversation_reset: "已开始新对话。"
  }
};

// "auto" (or nothing) follows the browser; anything Chinese gets zh-CN, the rest English.
function pickLanguage(attr, navigatorLanguage) {
  var wanted = attr && attr !== "auto" ? attr : navigatorLanguage || "en";
  return /^zh\b/i.test(wanted) ? "zh-CN" : "en";
}

function makeTranslator(lang) {
  var table = STRINGS[lang] || STRINGS.en;
  return function (key, params) {
    var text = table[key] !== undefined ? table[key] : STRINGS.en[key] !== undefined ? STRINGS.en[key] : key;
    if (params) {
      Object.keys(params).forEach(function (name) { text = text.replace("{" + name + "}", String(params[name])); });
    }
    return text;
  };
}

// The answer's language ("zh" | "en") as a BCP 47 tag for lang attributes.
function langTag(answerLanguage) {
  return answerLanguage === "zh" ? "zh-CN" : "en";
}
