//! Tests of the Markdown parser: blocks, inlines, safe links, nesting limits, no text lost.

use super::*;
use Block as B;
use Inline as I;

/// Plain text of the whole document: the tests use it to check that no text is lost.
fn plain_text(blocks: &[Block]) -> String {
    let mut out = String::new();
    text_blocks(blocks, "\n\n", &mut out);
    out
}

fn text_blocks(bs: &[Block], sep: &str, out: &mut String) {
    for (k, b) in bs.iter().enumerate() {
        out.push_str(if k > 0 { sep } else { "" });
        match b {
            Block::Paragraph(v) | Block::Heading(_, v) => text_inline(v, out),
            Block::Code { text, .. } => out.push_str(text),
            Block::Quote(v) => text_blocks(v, sep, out),
            Block::Rule => out.push_str("---"),
            Block::List { ordered, start, items } => {
                for (n, item) in items.iter().enumerate() {
                    let num = start.saturating_add(n as u32).to_string() + ". ";
                    out.push_str(if n > 0 { "\n" } else { "" });
                    out.push_str(if *ordered { &num } else { "- " });
                    text_blocks(item, "\n", out);
                }
            }
            Block::Table { head, rows } => {
                for (n, row) in std::iter::once(head).chain(rows).enumerate() {
                    out.push_str(if n > 0 { "\n" } else { "" });
                    for (c, cell) in row.iter().enumerate() {
                        out.push_str(if c > 0 { "\t" } else { "" });
                        text_inline(cell, out);
                    }
                }
            }
        }
    }
}

fn text_inline(v: &[Inline], out: &mut String) {
    for x in v {
        match x {
            Inline::Text(t) | Inline::Code(t) => out.push_str(t),
            Inline::Strong(k) | Inline::Emphasis(k) | Inline::Strike(k) => text_inline(k, out),
            Inline::Link { children, .. } => text_inline(children, out),
            Inline::LineBreak => out.push('\n'),
        }
    }
}

fn check(input: &str, expected: Vec<Block>) {
    let got = parse(input);
    assert_eq!(got, expected, "\ninput: {input:?}");
    let _ = plain_text(&got);
}
fn run_table(cases: Vec<(&str, Vec<Block>)>) {
    for (input, expected) in cases {
        check(input, expected);
    }
}
fn t(s: &str) -> Inline {
    I::Text(s.into())
}
fn c(s: &str) -> Inline {
    I::Code(s.into())
}
fn st(v: Vec<Inline>) -> Inline {
    I::Strong(v)
}
fn em(v: Vec<Inline>) -> Inline {
    I::Emphasis(v)
}
fn a(href: &str, v: Vec<Inline>) -> Inline {
    I::Link { href: href.into(), children: v }
}
fn url(href: &str) -> Inline {
    a(href, vec![t(href)])
}
fn p(v: Vec<Inline>) -> Block {
    B::Paragraph(v)
}
fn pt(s: &str) -> Block {
    p(vec![t(s)])
}
fn h(n: u8, s: &str) -> Block {
    B::Heading(n, vec![t(s)])
}
fn code(lang: Option<&str>, text: &str) -> Block {
    B::Code { lang: lang.map(String::from), text: text.into() }
}
fn ul(items: Vec<Vec<Block>>) -> Block {
    B::List { ordered: false, start: 1, items }
}
fn ol(start: u32, items: Vec<Vec<Block>>) -> Block {
    B::List { ordered: true, start, items }
}
fn q(v: Vec<Block>) -> Block {
    B::Quote(v)
}
fn cells(v: &[&str]) -> Vec<Vec<Inline>> {
    v.iter().map(|s| if s.is_empty() { vec![] } else { vec![t(s)] }).collect()
}

#[test]
fn blocks_basic() {
    run_table(vec![
        ("", vec![]),
        ("\n\n  \n", vec![]),
        ("hello", vec![pt("hello")]),
        ("a\nb", vec![pt("a b")]),
        ("a\n\n\nb", vec![pt("a"), pt("b")]),
        ("a  \nb", vec![p(vec![t("a"), I::LineBreak, t("b")])]),
        ("a\\\nb", vec![p(vec![t("a"), I::LineBreak, t("b")])]),
        ("a \n   b  ", vec![pt("a b")]),
        ("# One", vec![h(1, "One")]),
        ("###### Six ######", vec![h(6, "Six")]),
        ("####### seven", vec![pt("####### seven")]),
        ("#hashtag", vec![pt("#hashtag")]),
        ("## C#", vec![h(2, "C#")]),
        ("#", vec![B::Heading(1, vec![])]),
        ("para\n# head\nmore", vec![pt("para"), h(1, "head"), pt("more")]),
        ("---", vec![B::Rule]),
        ("***", vec![B::Rule]),
        ("_ _ _", vec![B::Rule]),
        ("--", vec![pt("--")]),
        ("text\n---", vec![pt("text"), B::Rule]),
        ("```\ncode\n```", vec![code(None, "code")]),
        (
            "```rust ignore\nfn x() {}\n\n  y\n```\nafter",
            vec![code(Some("rust"), "fn x() {}\n\n  y"), pt("after")],
        ),
        ("~~~\na\n```\nb\n~~~", vec![code(None, "a\n```\nb")]),
        ("~~~ python3 extra\nx = 1\n~~~", vec![code(Some("python3"), "x = 1")]),
        ("````\na\n```\n````", vec![code(None, "a\n```")]),
        ("```\nunclosed\n# not heading", vec![code(None, "unclosed\n# not heading")]),
        ("  ```\n  a\n b\n  ```", vec![code(None, "a\nb")]),
        ("```js```", vec![p(vec![c("js")])]),
        (
            "    code\n      more\n\n    end\n\npara",
            vec![code(None, "code\n  more\n\nend"), pt("para")],
        ),
        ("\tcode", vec![code(None, "code")]),
        ("para\n    not code", vec![pt("para not code")]),
        (
            "<div>\n<script>alert(1)</script>\n</div>",
            vec![pt("<div> <script>alert(1)</script> </div>")],
        ),
    ]);
}

#[test]
fn quotes() {
    run_table(vec![
        ("> quoted", vec![q(vec![pt("quoted")])]),
        ("> a\n> b\n>\n> c", vec![q(vec![pt("a b"), pt("c")])]),
        ("> a\nlazy", vec![q(vec![pt("a lazy")])]),
        ("> a\n\nb", vec![q(vec![pt("a")]), pt("b")]),
        (">> deep\n> shallow", vec![q(vec![q(vec![pt("deep shallow")])])]),
        ("> # h\n> - x", vec![q(vec![h(1, "h"), ul(vec![vec![pt("x")]])])]),
        ("> ```\n> code\n> ```", vec![q(vec![code(None, "code")])]),
    ]);
}

#[test]
fn lists() {
    run_table(vec![
        ("- a\n- b", vec![ul(vec![vec![pt("a")], vec![pt("b")]])]),
        ("* a\n+ b", vec![ul(vec![vec![pt("a")]]), ul(vec![vec![pt("b")]])]),
        ("1. a\n2. b", vec![ol(1, vec![vec![pt("a")], vec![pt("b")]])]),
        ("3) a\n4) b", vec![ol(3, vec![vec![pt("a")], vec![pt("b")]])]),
        ("1. a\n- b", vec![ol(1, vec![vec![pt("a")]]), ul(vec![vec![pt("b")]])]),
        ("- a\n  continued\n- b", vec![ul(vec![vec![pt("a continued")], vec![pt("b")]])]),
        ("- a\nlazy", vec![ul(vec![vec![pt("a lazy")]])]),
        (
            "- a\n\n  second para\n- b",
            vec![ul(vec![vec![pt("a"), pt("second para")], vec![pt("b")]])],
        ),
        ("- a\n\n- b", vec![ul(vec![vec![pt("a")], vec![pt("b")]])]),
        ("- a\n\nafter", vec![ul(vec![vec![pt("a")]]), pt("after")]),
        (
            "- a\n  - b\n    - c\n- d",
            vec![ul(vec![
                vec![pt("a"), ul(vec![vec![pt("b"), ul(vec![vec![pt("c")]])]])],
                vec![pt("d")],
            ])],
        ),
        (
            "1. a\n   - b\n2. c",
            vec![ol(1, vec![vec![pt("a"), ul(vec![vec![pt("b")]])], vec![pt("c")]])],
        ),
        ("1. a\n  - b", vec![ol(1, vec![vec![pt("a"), ul(vec![vec![pt("b")]])]])]),
        ("- ```\n  x\n  ```\n- y", vec![ul(vec![vec![code(None, "x")], vec![pt("y")]])]),
        ("-", vec![ul(vec![vec![]])]),
        ("-not a list", vec![pt("-not a list")]),
        ("*emph* text", vec![p(vec![em(vec![t("emph")]), t(" text")])]),
        ("para\n- item", vec![pt("para"), ul(vec![vec![pt("item")]])]),
        ("The year\n2024. was", vec![pt("The year 2024. was")]),
        ("para\n1. item", vec![pt("para"), ol(1, vec![vec![pt("item")]])]),
        ("- [ ] todo", vec![ul(vec![vec![pt("[ ] todo")]])]),
        ("- > q", vec![ul(vec![vec![q(vec![pt("q")])]])]),
        ("- # h", vec![ul(vec![vec![h(1, "h")]])]),
    ]);
}

#[test]
fn tables() {
    run_table(vec![
        (
            "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |",
            vec![B::Table {
                head: cells(&["a", "b"]),
                rows: vec![cells(&["1", "2"]), cells(&["3", "4"])],
            }],
        ),
        (
            "a | b\n--- | ---\nx | `y|z`",
            vec![B::Table {
                head: cells(&["a", "b"]),
                rows: vec![vec![vec![t("x")], vec![t("`y")], vec![t("z`")]][..2].to_vec()],
            }],
        ),
        (
            "| a | b |\n|---|---|\n| x \\| y | **z** |\n| only |\n| 1 | 2 | 3 |\n\nafter",
            vec![
                B::Table {
                    head: cells(&["a", "b"]),
                    rows: vec![
                        vec![vec![t("x | y")], vec![st(vec![t("z")])]],
                        cells(&["only"]),
                        cells(&["1", "2"]),
                    ],
                },
                pt("after"),
            ],
        ),
        ("| a |\n|---|---|", vec![pt("| a | |---|---|")]),
        ("a | b\nnot a separator", vec![pt("a | b not a separator")]),
        (
            "intro\n| a |\n| - |\n| 1 |",
            vec![pt("intro"), B::Table { head: cells(&["a"]), rows: vec![cells(&["1"])] }],
        ),
        ("| a |\n| - |\n||", vec![B::Table { head: cells(&["a"]), rows: vec![cells(&[""])] }]),
    ]);
}

#[test]
fn emphasis_and_code() {
    let long_ticks = format!("{0}x{0}", "`".repeat(17)); // runs over 16 never open a span
    run_table(vec![
        (
            "**bold** and *em*",
            vec![p(vec![st(vec![t("bold")]), t(" and "), em(vec![t("em")])])],
        ),
        ("__bold__ _em_", vec![p(vec![st(vec![t("bold")]), t(" "), em(vec![t("em")])])]),
        (
            "snake_case_names and __init__",
            vec![p(vec![t("snake_case_names and "), st(vec![t("init")])])],
        ),
        ("a_b_ _c_d", vec![pt("a_b_ _c_d")]),
        ("~~gone~~ ~one~", vec![p(vec![I::Strike(vec![t("gone")]), t(" ~one~")])]),
        ("*a **b** c*", vec![p(vec![em(vec![t("a "), st(vec![t("b")]), t(" c")])])]),
        ("***x***", vec![p(vec![em(vec![st(vec![t("x")])])])]),
        ("**a *b***", vec![p(vec![st(vec![t("a "), em(vec![t("b")])])])]),
        ("**x*", vec![p(vec![t("*"), em(vec![t("x")])])]),
        ("**unclosed", vec![pt("**unclosed")]),
        ("* not em *", vec![ul(vec![vec![pt("not em *")]])]),
        ("a * b * c", vec![pt("a * b * c")]),
        ("2*3*4", vec![p(vec![t("2"), em(vec![t("3")]), t("4")])]),
        ("`code`", vec![p(vec![c("code")])]),
        ("`a*b*c` and `x_y`", vec![p(vec![c("a*b*c"), t(" and "), c("x_y")])]),
        ("``a ` b``", vec![p(vec![c("a ` b")])]),
        ("`` `tick` ``", vec![p(vec![c("`tick`")])]),
        ("`  `", vec![p(vec![c("  ")])]),
        ("`a\nb`", vec![p(vec![c("a b")])]),
        ("`unclosed", vec![pt("`unclosed")]),
        (&long_ticks, vec![pt(&long_ticks)]),
        ("`a` `` b `` ```c```", vec![p(vec![c("a"), t(" "), c("b"), t(" "), c("c")])]),
        ("``a`", vec![pt("``a`")]),
        ("*`*`*", vec![p(vec![em(vec![c("*")])])]),
        ("`<script>`", vec![p(vec![c("<script>")])]),
        ("`C:\\`", vec![p(vec![c("C:\\")])]),
        ("\\*not em\\* \\_x\\_ \\` \\\\ \\a", vec![pt("*not em* _x_ ` \\ \\a")]),
        ("\\[x](https://e.com)", vec![p(vec![t("[x]("), url("https://e.com"), t(")")])]),
        (
            "**bold [link](https://e.com)**",
            vec![p(vec![st(vec![t("bold "), a("https://e.com", vec![t("link")])])])],
        ),
        (
            "[**b** `c`](https://e.com)",
            vec![p(vec![a("https://e.com", vec![st(vec![t("b")]), t(" "), c("c")])])],
        ),
        ("*[a*](https://e.com)", vec![p(vec![t("*"), a("https://e.com", vec![t("a*")])])]),
    ]);
}

#[test]
fn links() {
    let e = "https://example.com/a_b?x=1";
    run_table(vec![
        ("[docs](https://example.com/a_b?x=1)", vec![p(vec![a(e, vec![t("docs")])])]),
        ("[x](HTTP://E.COM)", vec![p(vec![a("HTTP://E.COM", vec![t("x")])])]),
        ("[x](mailto:me@e.com)", vec![p(vec![a("mailto:me@e.com", vec![t("x")])])]),
        (
            "[x]( https://e.com/a_b \"title\" )",
            vec![p(vec![a("https://e.com/a_b", vec![t("x")])])],
        ),
        ("[x](https://e.com 'title')", vec![p(vec![a("https://e.com", vec![t("x")])])]),
        (
            "[w](https://en.wikipedia.org/wiki/Rust_(language))",
            vec![p(vec![a("https://en.wikipedia.org/wiki/Rust_(language)", vec![t("w")])])],
        ),
        ("[x](https://e.com/\\))", vec![p(vec![a("https://e.com/)", vec![t("x")])])]),
        ("<https://e.com/x>", vec![p(vec![url("https://e.com/x")])]),
        ("<me@e.com>", vec![p(vec![a("mailto:me@e.com", vec![t("me@e.com")])])]),
        (
            "see https://e.com/path.",
            vec![p(vec![t("see "), url("https://e.com/path"), t(".")])],
        ),
        (
            "(see https://e.com/a_(b)), ok",
            vec![p(vec![t("(see "), url("https://e.com/a_(b)"), t("), ok")])],
        ),
        ("**https://e.com**", vec![p(vec![st(vec![url("https://e.com")])])]),
        ("xhttps://e.com", vec![pt("xhttps://e.com")]),
        ("https:// nothing", vec![pt("https:// nothing")]),
        (
            "[https://e.com](https://e.com)",
            vec![p(vec![a("https://e.com", vec![t("https://e.com")])])],
        ),
        (
            "[a [b](https://b.com) c](https://c.com)",
            vec![p(vec![
                t("[a "),
                a("https://b.com", vec![t("b")]),
                t(" c]("),
                url("https://c.com"),
                t(")"),
            ])],
        ),
        ("[a](https://e.com", vec![p(vec![t("[a]("), url("https://e.com")])]),
        ("[ref] and [x]", vec![pt("[ref] and [x]")]),
        ("[x] (https://e.com)", vec![p(vec![t("[x] ("), url("https://e.com"), t(")")])]),
        (
            "![img](https://e.com/i.png)",
            vec![p(vec![t("!"), a("https://e.com/i.png", vec![t("img")])])],
        ),
        ("[x]()", vec![pt("[x]()")]),
        ("[](https://e.com)", vec![p(vec![a("https://e.com", vec![])])]),
    ]);
}

fn hrefs(v: &[Inline], out: &mut Vec<String>, depth: usize, max: &mut usize) {
    *max = (*max).max(depth);
    for x in v {
        match x {
            I::Link { href, children } => {
                out.push(href.clone());
                hrefs(children, out, depth + 1, max)
            }
            I::Strong(k) | I::Emphasis(k) | I::Strike(k) => hrefs(k, out, depth + 1, max),
            _ => {}
        }
    }
}
/// (all hrefs, max inline depth, max block depth)
fn walk(bs: &[Block], out: &mut Vec<String>, depth: usize, max: &mut (usize, usize)) {
    max.1 = max.1.max(depth);
    for b in bs {
        match b {
            B::Paragraph(v) | B::Heading(_, v) => hrefs(v, out, 0, &mut max.0),
            B::Quote(v) => walk(v, out, depth + 1, max),
            B::List { items, .. } => items.iter().for_each(|i| walk(i, out, depth + 1, max)),
            B::Table { head, rows } => {
                for cell in head.iter().chain(rows.iter().flatten()) {
                    hrefs(cell, out, 0, &mut max.0)
                }
            }
            _ => {}
        }
    }
}
fn assert_safe(input: &str) -> Vec<Block> {
    let doc = parse(input);
    let (mut links, mut max) = (Vec::new(), (0, 0));
    walk(&doc, &mut links, 0, &mut max);
    for h in &links {
        let l = h.to_ascii_lowercase();
        assert!(
            ["http://", "https://", "mailto:"].iter().any(|p| l.starts_with(p))
                && !h.chars().any(char::is_control),
            "unsafe href {h:?} from {input:?}"
        );
    }
    assert!(max.0 <= MAX_DEPTH + 1 && max.1 <= MAX_DEPTH, "depth {max:?} for {input:?}");
    let _ = plain_text(&doc);
    doc
}

#[test]
fn xss_stays_inert() {
    let attacks = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<svg/onload=alert(1)>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "<iframe src=\"javascript:alert(1)\"></iframe>",
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x]( javascript:alert(1) )",
        "[x](java\tscript:alert(1))",
        "[x](<java\tscript:alert(1)>)",
        "[x](<java\u{1}script:alert(1)>)",
        "[x](<\u{0}javascript:alert(1)>)",
        "[x](\u{2028}javascript:alert(1))",
        "[x](\u{a0}javascript:alert(1))",
        "[x](javascript&#58;alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](file:///etc/passwd)",
        "[x](//evil.com)",
        "[x](/relative)",
        "[x](#frag)",
        "[x](https:javascript:alert(1))",
        "[x](h\u{200b}ttps://e.com)",
        "[x](\\javascript:alert(1))",
        "![x](javascript:alert(1))",
        "<javascript:alert(1)>",
        "<JAVASCRIPT:alert(1)>",
        "<data:text/html,<script>alert(1)</script>>",
        "javascript:alert(1)",
        "[a](https://ok.com\" onclick=\"alert(1))",
        "https://e.com\"><script>alert(1)</script>",
        "[<img src=x onerror=alert(1)>](https://e.com)",
        "[x](https://e.com)<script>alert(1)</script>",
        "`<script>` <b onmouseover=alert(1)>hi</b>",
        "| <script> | b |\n|---|---|\n| [x](javascript:1) | <img> |",
        "> <script>alert(1)</script>\n- <style>*{}</style>",
        "# <h1>x</h1>",
        "[x](javascript:alert('https://e.com'))",
        "[[x](javascript:alert(1))](https://e.com)",
        "[x](  \u{7f}javascript:alert(1))",
        "<vbscript:x>",
        "[x](mailto:a@b.c\" onclick=\"x)",
    ];
    for input in attacks {
        let doc = assert_safe(input);
        let text = plain_text(&doc);
        for tag in ["<script>", "<img", "<svg", "<iframe", "<b ", "<style>", "<h1>"] {
            assert_eq!(
                input.contains(tag),
                text.contains(tag),
                "{tag} lost or invented in {input:?} → {text:?}"
            );
        }
    }
    run_table(vec![
        ("<script>alert(1)</script>", vec![pt("<script>alert(1)</script>")]),
        ("<img src=x onerror=alert(1)>", vec![pt("<img src=x onerror=alert(1)>")]),
        ("[x](javascript:alert(1))", vec![pt("[x](javascript:alert(1))")]),
        ("[x](java\tscript:alert(1))", vec![pt("[x](java\tscript:alert(1))")]),
        ("<javascript:alert(1)>", vec![pt("<javascript:alert(1)>")]),
        ("[x](data:text/html,hi)", vec![pt("[x](data:text/html,hi)")]),
    ]);
}

#[test]
fn nesting_is_capped() {
    let cases = [
        ">".repeat(10_000) + " x",
        "> ".repeat(10_000) + "x",
        "- ".repeat(10_000) + "x",
        "1. ".repeat(10_000) + "x",
        "> - ".repeat(10_000) + "x",
        (0..1000).map(|k| " ".repeat(2 * k) + "- x\n").collect(),
        "*a ".repeat(1000) + &" a*".repeat(1000),
        "[".repeat(1000) + "x" + &"](https://e.com)".repeat(1000),
        "**[".repeat(1000) + "x" + &"](https://e.com)**".repeat(1000),
        "_*~~".repeat(1000) + "x" + &"~~*_".repeat(1000),
    ];
    for input in &cases {
        assert_safe(input);
    }
    let deep = ">".repeat(20) + " x";
    let mut expected = vec![pt(&(">".repeat(4) + " x"))];
    for _ in 0..16 {
        expected = vec![q(expected)];
    }
    check(&deep, expected);
    check(&("[".repeat(20) + "x"), vec![pt(&("[".repeat(20) + "x"))]);
}

#[test]
fn realistic_answer() {
    let answer = "## Key papers\n\nHere are some **influential** papers:\n\n\
            1. **Attention Is All You Need** (Vaswani et al., 2017) — [arXiv](https://arxiv.org/abs/1706.03762)\n\
            2. *BERT*: see https://arxiv.org/abs/1810.04805.\n   It uses `mask_token * 0.15`.\n\n\
            | Model | Params |\n|-------|-------:|\n| GPT-2 | 1.5B |\n| BERT_large | 340M |\n\n\
            ```python\ndef f(x):\n    return x * 2\n```\n\n> **Note:** results vary.\n\n---\n\nUse `a * b` or `**kwargs`.";
    let expected = vec![
        h(2, "Key papers"),
        p(vec![t("Here are some "), st(vec![t("influential")]), t(" papers:")]),
        ol(
            1,
            vec![
                vec![p(vec![
                    st(vec![t("Attention Is All You Need")]),
                    t(" (Vaswani et al., 2017) — "),
                    a("https://arxiv.org/abs/1706.03762", vec![t("arXiv")]),
                ])],
                vec![p(vec![
                    em(vec![t("BERT")]),
                    t(": see "),
                    url("https://arxiv.org/abs/1810.04805"),
                    t(". It uses "),
                    c("mask_token * 0.15"),
                    t("."),
                ])],
            ],
        ),
        B::Table {
            head: cells(&["Model", "Params"]),
            rows: vec![cells(&["GPT-2", "1.5B"]), cells(&["BERT_large", "340M"])],
        },
        code(Some("python"), "def f(x):\n    return x * 2"),
        q(vec![p(vec![st(vec![t("Note:")]), t(" results vary.")])]),
        B::Rule,
        p(vec![t("Use "), c("a * b"), t(" or "), c("**kwargs"), t(".")]),
    ];
    check(answer, expected);
    assert_eq!(
        plain_text(&parse(answer)),
        "Key papers\n\nHere are some influential papers:\n\n\
             1. Attention Is All You Need (Vaswani et al., 2017) — arXiv\n\
             2. BERT: see https://arxiv.org/abs/1810.04805. It uses mask_token * 0.15.\n\n\
             Model\tParams\nGPT-2\t1.5B\nBERT_large\t340M\n\n\
             def f(x):\n    return x * 2\n\nNote: results vary.\n\n---\n\nUse a * b or **kwargs."
    );
    assert_eq!(plain_text(&parse("- a\n  - b\n- c  \n  d")), "- a\n- b\n- c\nd");
    assert_eq!(plain_text(&parse("7. x\n8. *y*\n\n> q\n\n***")), "7. x\n8. y\n\nq\n\n---");
}

#[test]
fn randomized_no_panic() {
    const TOKENS: &[&str] = &[
        "*",
        "**",
        "***",
        "_",
        "__",
        "~~",
        "~",
        "`",
        "``",
        "```",
        "~~~",
        "[",
        "]",
        "(",
        ")",
        "](",
        "<",
        ">",
        "\n",
        "\n\n",
        " ",
        "  ",
        "    ",
        "\t",
        "#",
        "## ",
        "- ",
        "* ",
        "1. ",
        "2) ",
        "> ",
        "|",
        "|---|",
        "---",
        "\\",
        "https://e.com/",
        "http://x",
        "mailto:a@b",
        "javascript:",
        "<script>",
        "a",
        "b_c",
        "word",
        "é",
        "😀",
        "\u{0}",
        "\r",
        ":",
        ".",
        "!",
        "\"",
        "'",
        "@",
        "h",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let n = std::env::var("MD_FUZZ_N").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000);
    for _ in 0..n {
        let len = (next() % 40) as usize;
        let input: String =
            (0..len).map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize]).collect();
        assert_safe(&input);
    }
}

#[test]
fn pathological_inputs_finish() {
    const MB: usize = 1 << 20;
    let fill = |s: &str| s.repeat(MB / s.len());
    let cases: Vec<(&str, String)> = vec![
        ("1M '*' in text", "a".to_string() + &"*".repeat(MB)),
        ("'*a'", fill("*a")),
        ("'**a '", fill("**a ")),
        ("'_a_'", fill("_a_ ")),
        ("'[' ", "[".repeat(MB)),
        ("'[a]('", fill("[a](")),
        ("'[a](u \"'", fill("[a](u \"")),
        ("'](' ", fill("](")),
        ("'[a](' + '('", "[a](".to_string() + &"(".repeat(MB)),
        ("'<'", "<".repeat(MB)),
        ("'<a'", fill("<a")),
        ("'`' runs 1..n", (1..1400).map(|n| "`".repeat(n) + "x").collect()),
        ("'`a'", fill("`a")),
        ("'\\\\'", "\\".repeat(MB)),
        ("'https://'", fill("https://")),
        ("'https://x' + ')'", "https://x".to_string() + &")".repeat(MB)),
        ("'>' one line", ">".repeat(MB)),
        ("'> ' lines", fill("> \n")),
        ("'- ' nesting", fill("- ") + "x"),
        ("'[' then ']'", "[".repeat(MB / 2) + &"]".repeat(MB / 2)),
        ("'> ' nesting", fill("> ") + "x"),
        ("list staircase", (0..1000).map(|k| " ".repeat(k) + "- x\n").collect()),
        ("'1. a\\n'", fill("1. a\n")),
        ("'|'", "|".repeat(MB)),
        ("wide table", "|a".repeat(20_000) + "\n" + &"|-".repeat(20_000) + "\n" + &fill("|\n")),
        ("'```\\n'", fill("```\n")),
        ("'a  \\n'", fill("a  \n")),
        ("'#'", "#".repeat(MB)),
        ("'~~a'", fill("~~a")),
        ("mixed", fill("*_[`<h~\\](")),
        ("'- a\\nb\\n'", fill("- a\nb\n")),
    ];
    for (name, input) in cases {
        let start = std::time::Instant::now();
        let doc = parse(&input);
        let text = plain_text(&doc);
        eprintln!(
            "{name:>22}: {:>4} KB in {:?} ({} text bytes)",
            input.len() / 1024,
            start.elapsed(),
            text.len()
        );
    }
}
