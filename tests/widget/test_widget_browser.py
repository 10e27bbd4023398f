"""The widget on the demo page and on third-party pages, driven in headless Chromium."""

from __future__ import annotations

import pytest

from tests.widget.conftest import XSS_MARKER, dump, host_page, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OUTAGE_EN = "What should we do when the power fails in the middle of training?"
OUTAGE_ZH = "训练到一半断电了怎么办？"
PREFLIGHT_EN = "What should we check before putting two new 8×H100 servers into production?"
RECOMMEND_ZH = "Qwen-14B 全参微调，50万条样本，24小时内完成，需要什么配置？"

# Records, inside the shadow root, the order in which parts of each answer first appear.
ORDER_PROBE = """() => {
  const root = document.querySelector('gpu-advisor').shadowRoot;
  window.__order = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      const tag = n.matches('.source-cards') ? 'sources' : n.matches('.draft, [data-block]') ? 'text'
        : n.matches('.feedback') ? 'done' : null;
      if (tag) window.__order.push(tag);
    }
  }).observe(root, {childList: true, subtree: true});
}"""


def open_widget(page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("() => window.GpuAdvisor && window.GpuAdvisor.version")
    page.locator("gpu-advisor .launcher").click()
    page.locator("gpu-advisor .panel").wait_for(state="visible")


def ask(page, text: str) -> None:
    """Type a question, send it with Enter and wait until its answer (or an error) is complete."""
    answers = page.locator("gpu-advisor .msg.advisor")
    before = answers.count()
    page.locator("gpu-advisor textarea").fill(text)
    page.locator("gpu-advisor textarea").press("Enter")
    wait_answer(page, before)


def wait_answer(page, before: int) -> None:
    page.wait_for_function(
        "(n) => { const all = document.querySelector('gpu-advisor').shadowRoot.querySelectorAll('.msg.advisor');"
        " return all.length > n && all[all.length - 1].querySelector('.feedback, .error'); }", arg=before)


def last_answer(page):
    return page.locator("gpu-advisor .msg.advisor").last


def shadow_active(page) -> str:
    return page.evaluate("() => { const a = document.querySelector('gpu-advisor').shadowRoot.activeElement;"
                         " return a ? a.className || a.tagName : ''; }")


def test_english_question_streams_citations_first_then_text_with_follow_ups(page, app_url) -> None:
    page.goto(f"{app_url}/demo")
    launcher = page.locator("gpu-advisor .launcher")
    assert launcher.get_attribute("aria-label") == "Open the GPU Deployment Advisor chat"
    assert launcher.get_attribute("aria-expanded") == "false"
    launcher.click()
    assert launcher.get_attribute("aria-expanded") == "true"
    dialog = page.locator("gpu-advisor [role=dialog]")
    assert dialog.is_visible()
    title_id = dialog.get_attribute("aria-labelledby")
    assert page.locator(f"gpu-advisor #{title_id}").inner_text() == "GPU Deployment Advisor"
    assert shadow_active(page) == "input"  # focus moved into the panel

    page.evaluate(ORDER_PROBE)
    ask(page, OUTAGE_EN)
    answer = last_answer(page)
    assert answer.get_attribute("lang") == "en"
    order = page.evaluate("() => window.__order")
    assert order[0] == "sources" and "text" in order and order[-1] == "done", order  # citations before any text

    cards = answer.locator(".source-card a.source-title")
    assert cards.count() >= 1
    assert cards.first.get_attribute("href").startswith("http")
    assert cards.first.get_attribute("rel") == "noopener noreferrer" and cards.first.get_attribute("target") == "_blank"
    body = answer.locator(".answer-body").inner_text()
    assert len(body) > 80 and "checkpoint" in body.lower(), body
    assert answer.locator(".follow-up").count() >= 1
    page.wait_for_function("() => document.querySelector('gpu-advisor').shadowRoot.querySelector('.announcer').textContent"
                           ".startsWith('Answer ready: ')")
    save_screenshot(page, "desktop-en-answer")

    answer.locator(".rate-up").click()
    page.wait_for_function("() => document.querySelector('gpu-advisor').shadowRoot.querySelector('.rate-up[aria-pressed=true]')")
    assert "Thanks" in answer.locator(".thanks").inner_text()


def test_chinese_question_gets_chinese_ui_and_answer(zh_page, app_url) -> None:
    page = zh_page
    open_widget(page, f"{app_url}/demo")
    assert page.locator("gpu-advisor .launcher").get_attribute("aria-label") == "打开 GPU 部署顾问对话"
    assert page.locator("gpu-advisor .send").inner_text() == "发送"
    ask(page, OUTAGE_ZH)
    answer = last_answer(page)
    assert answer.get_attribute("lang") == "zh-CN"
    assert answer.locator(".source-card").count() >= 1
    body = answer.locator(".answer-body").inner_text()
    assert "断电" in body and "优化器状态" in body, body
    save_screenshot(page, "desktop-zh-answer")


def test_follow_up_button_asks_it_in_the_same_conversation_and_reset_starts_a_new_one(page, app_url) -> None:
    open_widget(page, f"{app_url}/demo")
    page.evaluate("() => { window.__answers = []; window.addEventListener('gpuadvisor:answer', (e) => window.__answers.push(e.detail.answer)); }")
    ask(page, PREFLIGHT_EN)
    follow_up = last_answer(page).locator(".follow-up").first
    question = follow_up.inner_text()
    follow_up.click()
    wait_answer(page, 1)
    assert page.locator("gpu-advisor .msg.user p").last.inner_text() == question
    session = page.evaluate("() => window.GpuAdvisor.session()")
    assert session.startswith("widget:")
    answers = page.evaluate("() => window.__answers")
    assert len(answers) == 2 and answers[0]["conversation_id"] == answers[1]["conversation_id"], dump(answers)

    page.locator("gpu-advisor .reset").click()
    assert page.locator("gpu-advisor .msg").count() == 0
    assert page.evaluate("() => window.GpuAdvisor.session()") != session
    ask(page, OUTAGE_EN)
    answers = page.evaluate("() => window.__answers")
    assert answers[2]["conversation_id"] != answers[0]["conversation_id"]


def test_a_reload_shows_the_conversation_again_and_continues_it(page, app_url) -> None:
    open_widget(page, f"{app_url}/demo")
    ask(page, OUTAGE_EN)
    first_id = page.evaluate("() => JSON.parse(Object.entries(sessionStorage).find(([k]) => k.endsWith(':transcript'))[1])[0]"
                             ".answer.conversation_id")
    page.reload()
    page.wait_for_function("() => window.GpuAdvisor && window.GpuAdvisor.version")
    page.evaluate("() => { window.__answers = []; window.addEventListener('gpuadvisor:answer', (e) => window.__answers.push(e.detail.answer)); }")
    page.evaluate("() => window.GpuAdvisor.open()")
    assert page.locator("gpu-advisor .msg.user p").all_inner_texts() == [OUTAGE_EN]
    assert last_answer(page).locator(".source-card").count() >= 1
    ask(page, "How often should we save a checkpoint?")
    assert page.evaluate("() => window.__answers[0].conversation_id") == first_id


def test_on_a_third_party_site_the_visitor_token_survives_a_reload_so_the_visitor_rates_and_continues(page, app_url, host_sites) -> None:
    # The token comes back in a cross-origin response header (exposed by CORS) and is sent with every later request:
    # without it the restored answer could not be rated, nor the conversation continued (another visitor's 404).
    allowed, _ = host_sites
    open_widget(page, allowed.origin + "/")
    ask(page, OUTAGE_EN)
    stored = page.evaluate("() => Object.entries(sessionStorage).filter(([k]) => k.endsWith(':visitor')).map(([, v]) => v)")
    assert len(stored) == 1 and len(stored[0]) >= 32, stored
    first_id = page.evaluate("() => JSON.parse(Object.entries(sessionStorage).find(([k]) => k.endsWith(':transcript'))[1])[0]"
                             ".answer.conversation_id")
    page.reload()
    page.wait_for_function("() => window.GpuAdvisor && window.GpuAdvisor.version")
    page.evaluate("() => window.GpuAdvisor.open()")
    last_answer(page).locator(".rate-up").click()
    page.wait_for_function("() => document.querySelector('gpu-advisor').shadowRoot.querySelector('.thanks').textContent !== ''")
    assert last_answer(page).locator(".thanks").inner_text() == "Thanks for the feedback."
    page.evaluate("() => { window.__answers = []; window.addEventListener('gpuadvisor:answer', (e) => window.__answers.push(e.detail.answer)); }")
    ask(page, "How often should we save a checkpoint?")
    assert page.evaluate("() => window.__answers[0].conversation_id") == first_id


def test_checklist_commands_are_copyable_and_work_is_folded(page, app_url) -> None:
    open_widget(page, f"{app_url}/demo")
    ask(page, PREFLIGHT_EN)
    answer = last_answer(page)
    assert answer.locator("[data-block=checklist]").count() == 1, answer.inner_html()
    command = answer.locator(".command").first
    assert command.locator("pre code").inner_text().strip()
    assert command.locator("button.copy").inner_text() == "Copy"
    works = answer.locator("details.work")
    assert works.count() >= 1
    assert all(work.get_attribute("open") is None for work in works.all())  # folded by default
    works.first.locator("summary").click()
    assert works.first.get_attribute("open") is not None


def test_recommendation_is_a_card_with_right_aligned_numbers_and_a_cost_time_chart(zh_page, app_url) -> None:
    page = zh_page
    open_widget(page, f"{app_url}/demo")
    ask(page, RECOMMEND_ZH)
    card = last_answer(page).locator("[data-block=recommendation]")
    assert card.count() == 1, last_answer(page).inner_html()
    assert "×" in card.locator(".rec-headline").inner_text()
    assert "节点" in card.locator(".facts").inner_text()  # labels in the answer's language
    numbers = card.locator("td.num")
    assert numbers.count() >= 2
    assert numbers.first.evaluate("(el) => getComputedStyle(el).textAlign") == "right"
    chart = card.locator("svg.chart")
    assert chart.count() == 1 and chart.locator("circle").count() >= 2
    card.scroll_into_view_if_needed()
    save_screenshot(page, "desktop-zh-recommendation")


def test_keyboard_only_open_type_send_and_close(page, app_url) -> None:
    page.goto(f"{app_url}/demo")
    page.wait_for_function("() => window.GpuAdvisor && window.GpuAdvisor.version")
    for _ in range(30):  # tab through the host page to the launcher (the widget is last in the page)
        page.keyboard.press("Tab")
        if shadow_active(page) == "launcher":
            break
    assert shadow_active(page) == "launcher"
    page.keyboard.press("Enter")
    assert shadow_active(page) == "input"
    page.keyboard.type("first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    assert page.locator("gpu-advisor textarea").input_value() == "first line\nsecond line"
    page.keyboard.press("Control+A")
    page.keyboard.type(OUTAGE_EN)
    page.keyboard.press("Enter")
    wait_answer(page, 0)
    assert page.locator("gpu-advisor .msg.user p").inner_text() == OUTAGE_EN
    page.keyboard.press("Escape")
    assert page.locator("gpu-advisor .panel").is_hidden()
    assert page.locator("gpu-advisor .launcher").get_attribute("aria-expanded") == "false"
    assert shadow_active(page) == "launcher"


def test_markup_in_a_knowledge_document_renders_as_inert_text(page, app_url) -> None:
    open_widget(page, f"{app_url}/demo")
    ask(page, f"How do I tune the {XSS_MARKER} interconnect for NCCL all-reduce?")
    answer = last_answer(page)
    text = answer.inner_text()
    assert XSS_MARKER in text, text  # the hostile document was retrieved and shown
    assert "<img" in text or "<script" in text or "<iframe" in text, text  # its markup is visible as text
    dangerous = "img, script, iframe, object, embed, [onerror], [onload], [onmouseover], a[href^='javascript'], a[href^='data']"
    assert page.locator(f"gpu-advisor .log :is({dangerous})").count() == 0
    page.wait_for_timeout(300)  # give an injected handler the chance to run before looking for its effects
    assert page.evaluate("() => window.__xss") is None
    assert page.watch.dialogs == [] and page.watch.errors == [], (page.watch.dialogs, page.watch.errors)
    for link in answer.locator("a").all():
        assert link.get_attribute("href").startswith(("http://", "https://")), link.get_attribute("href")


def test_allowed_third_party_site_gets_answers_and_other_sites_are_refused(page, app_url, host_sites) -> None:
    allowed, refused = host_sites
    open_widget(page, allowed.origin + "/")
    ask(page, OUTAGE_EN)
    assert last_answer(page).locator(".source-card").count() >= 1

    open_widget(page, refused.origin + "/")
    ask(page, OUTAGE_EN)
    error = last_answer(page).locator(".error")
    assert error.get_attribute("role") == "alert"
    assert error.locator("button.retry").count() == 1
    assert last_answer(page).locator(".answer-body").inner_text() == ""
    assert any("CORS" in line for line in page.watch.console), page.watch.console


def test_host_css_and_widget_css_do_not_reach_each_other(page, app_url, host_sites) -> None:
    allowed, _ = host_sites
    hostile_css = ("<style>* { font-family: 'Comic Sans MS', serif !important; color: rgb(255, 0, 0) !important; }"
                   " button { background: rgb(0, 255, 0) !important; width: 300px !important; border-radius: 0 !important; }"
                   " .launcher, .panel, .msg { display: none !important; }</style>")
    allowed.pages["/hostile-css"] = host_page(f"{app_url}/widget.js", hostile_css)
    allowed.pages["/hostile-css-no-widget"] = host_page("/none.js", hostile_css).replace('<script src="/none.js"', '<script data-x="1"')
    probe = "() => { const s = (el) => { const c = getComputedStyle(el); return [c.color, c.fontFamily, c.backgroundColor, c.width, c.margin]; };" \
            " return [s(document.getElementById('host-text')), s(document.getElementById('host-button')), s(document.body)]; }"

    page.goto(allowed.origin + "/hostile-css-no-widget")
    host_without = page.evaluate(probe)
    open_widget(page, allowed.origin + "/hostile-css")
    assert page.evaluate(probe) == host_without  # the widget's styles do not touch the host page

    launcher = page.evaluate("() => { const c = getComputedStyle(document.querySelector('gpu-advisor').shadowRoot.querySelector('.launcher'));"
                             " return [c.width, c.backgroundColor, c.borderRadius]; }")
    assert launcher == ["56px", "rgb(34, 85, 204)", "50%"], launcher
    title = page.evaluate("() => { const c = getComputedStyle(document.querySelector('gpu-advisor').shadowRoot.querySelector('.title'));"
                          " return [c.color, c.fontFamily]; }")
    assert title[0] == "rgb(255, 255, 255)" and "Comic" not in title[1], title
    assert page.locator("gpu-advisor .panel").is_visible()


def test_mobile_viewport_opens_full_screen(browser, app_url) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 740}, is_mobile=True, has_touch=True, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{app_url}/demo")
        page.wait_for_function("() => window.GpuAdvisor && window.GpuAdvisor.version")
        save_screenshot(page, "mobile-closed")
        page.evaluate("() => window.GpuAdvisor.open()")
        box = page.locator("gpu-advisor .panel").bounding_box()
        assert box == {"x": 0, "y": 0, "width": 390, "height": 740}, box
        page.evaluate(f"() => window.GpuAdvisor.ask({OUTAGE_EN!r})")
        wait_answer(page, 0)
        save_screenshot(page, "mobile-answer")
        page.evaluate("() => window.GpuAdvisor.close()")
        assert page.locator("gpu-advisor .panel").is_hidden()
    finally:
        context.close()


def test_sse_parser_gives_the_same_events_however_the_stream_is_cut(page) -> None:
    from importlib.resources import files

    page.set_content("<!doctype html><title>sse</title>")
    page.add_script_tag(content=files("service.widget").joinpath("src", "sse.js").read_text(encoding="utf-8"))
    stream = ': ping\r\nevent: meta\r\ndata: {"a":1}\r\n\r\nevent: delta\ndata: {"text":"line one\\n\\u4e2d"}\n\n' \
             'data: first\rdata: second\r\r' + 'event: done\ndata: {"z":true}\n\nevent: error\ndata: {"cut": "no end"}'
    events = page.evaluate("""(stream) => {
      const results = [];
      for (const size of [1, 2, 3, 7, stream.length]) {
        const seen = [];
        const parser = createSseParser((name, data) => seen.push([name, data]));
        for (let i = 0; i < stream.length; i += size) parser.feed(stream.slice(i, i + size));
        parser.end();
        results.push(JSON.stringify(seen));
      }
      return results;
    }""", stream)
    assert len(set(events)) == 1, events
    assert events[0] == ('[["meta","{\\"a\\":1}"],["delta","{\\"text\\":\\"line one\\\\n\\\\u4e2d\\"}"],'
                         '["message","first\\nsecond"],["done","{\\"z\\":true}"]]')
