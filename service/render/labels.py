"""Words the renderers add around typed values, per language (everything else comes in the blocks)."""

from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "item": "item", "value": "value", "configuration": "configuration", "strategy": "strategy", "serving": "serving setup", "interconnect": "GPU interconnect",
        "memory": "memory per GPU", "time": "time (MFU band)", "cost": "cost", "storage": "storage", "network": "network",
        "deployment": "deployment", "node": "node", "nodes": "node(s)", "alternatives": "Alternatives", "option": "option",
        "alt_configuration": "configuration", "alt_time": "time", "alt_cost": "cost", "on_prem": "on-prem", "deploy_cloud": "cloud", "deploy_on_prem": "on-prem", "deploy_hybrid": "hybrid",
        "input": "input", "input_value": "value", "from": "from", "formulas": "Formulas:", "assumptions": "Assumptions:",
        "formula_sources": "Formula sources: ", "more_steps": "… {n} more steps in the tool output",
        "assumption": "Assumed", "info": "Note", "warning": "Warning", "error": "Problem",
    },
    "zh": {
        "item": "项目", "value": "数值", "configuration": "配置", "strategy": "训练策略", "serving": "部署配置", "interconnect": "卡间互联",
        "memory": "每卡显存", "time": "时间（MFU 区间）", "cost": "费用", "storage": "存储", "network": "网络",
        "deployment": "部署方式", "node": "节点", "nodes": "个节点", "alternatives": "备选方案", "option": "方案",
        "alt_configuration": "配置", "alt_time": "时间", "alt_cost": "费用", "on_prem": "自建", "deploy_cloud": "上云租用", "deploy_on_prem": "自建", "deploy_hybrid": "混合（自建 + 云）",
        "input": "输入", "input_value": "取值", "from": "来源", "formulas": "公式：", "assumptions": "假设：",
        "formula_sources": "公式来源：", "more_steps": "……其余 {n} 步见工具输出",
        "assumption": "假设", "info": "说明", "warning": "注意", "error": "问题",
    },
}
TIERS = {"entry": ("entry validation (1 GPU)", "入门验证型（单卡）"), "mid": ("mid-scale training (one node)", "中等规模训练型（单节点）"),
         "production": ("production (multi-node cluster)", "大规模生产型（多节点集群）")}
NOTICE_ICONS = {"assumption": "", "info": "ℹ️", "warning": "⚠️", "error": "⛔"}


def label(language: str, key: str, **values) -> str:
    text = LABELS["zh" if language == "zh" else "en"][key]
    return text.format(**values) if values else text


def tier_name(language: str, tier: str) -> str:
    return TIERS[tier][1 if language == "zh" else 0]
