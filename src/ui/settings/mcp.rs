//! Settings → Tools → MCP servers: add a server by address (with an optional token or header
//! secret), Connect, switch each tool on or off, and how each is signed in to. The page's hub
//! and Connect are a page service (`ui::services::mcp`); these rows only draw its state.

use leptos::prelude::*;

use crate::app::settings::{McpServer, Settings};
use crate::ui::services::hub::connect;
use crate::ui::services::mcp::{install, Mcp};

type Page = Mcp;

#[component]
pub fn McpServersPanel(settings: RwSignal<Settings>) -> impl IntoView {
    // `App` provides the page's; a panel mounted on its own (the browser tests) makes one.
    let page = use_context::<Mcp>().unwrap_or_else(|| install(settings));
    // Back from a sign-in the page went to itself: it finishes here (the page opened Settings).
    // Remembered sign-ins are read as the hub is made: made here, the rows say them at once.
    crate::ui::services::hub::make(page);
    let count = move || settings.with(|s| s.tools.mcp.servers.len());
    let add = move |_| settings.update(|s| s.tools.mcp.servers.push(McpServer::default()));
    // Open from the start when servers are set up; after that the person decides.
    let open_at_first = count() != 0;
    view! {
        <details data-testid="mcp-servers" open=open_at_first>
            <summary>"MCP servers"</summary>
            <p class="hint">
                "Tools from any MCP server that speaks Streamable HTTP. The server must allow this page's origin (CORS) and expose the "
                <code>"Mcp-Session-Id"</code>" header. A token is sent only to its own server; it stays in memory unless you tick Remember."
            </p>
            <For each=move || 0..count() key=|i| *i let:index>
                <ServerRow page index/>
            </For>
            <button type="button" class="ghost" data-testid="mcp-add" on:click=add>"+ Add MCP server"</button>
        </details>
    }
}

#[component]
fn ServerRow(page: Page, index: usize) -> impl IntoView {
    let settings = page.settings();
    let id = move |what: &str| format!("mcp-{what}-{index}");
    let url = move || settings.with(|s| s.tools.mcp.servers.get(index).map(|s| s.url.clone()).unwrap_or_default());
    let connect = move |_| connect(page, index);
    let remove = move |_| settings.update(|s| {
        if index < s.tools.mcp.servers.len() {
            s.tools.mcp.servers.remove(index);
        }
    });
    view! {
        <div class="mcp-server" data-testid=id("server")>
            {text_field(page, index, "Server address (Streamable HTTP endpoint)", "url", "https://example.org/mcp", |s| s.url.clone(), |s, v| s.url = v)}
            {text_field(page, index, "Header for the secret (empty: Authorization: Bearer …)", "header", "Authorization", |s| s.header.clone(), |s, v| s.header = v)}
            {text_field(page, index, "Token or header value", "secret", "optional", |s| s.secret.clone(), |s, v| s.secret = v)}
            {check_field(page, index, "Remember its secrets on this device (the token and the client secret, stored in this browser's localStorage)", "remember", |s| s.remember_secret, |s, v| s.remember_secret = v)}
            {check_field(page, index, "Use this server's tools", "enabled", |s| s.common.enabled, |s, v| s.common.enabled = v)}
            {text_field(page, index, "Client ID for its sign-in (only when its authorization server registers no clients itself)", "client-id", "registered on sign-in", |s| s.client_id.clone(), |s, v| s.client_id = v)}
            {text_field(page, index, "Client secret, when that client ID came with one", "client-secret", "none", |s| s.client_secret.clone(), |s, v| s.client_secret = v)}
            {check_field(page, index, "Ask me before it uses my model (sampling); off: always allow", "sampling-ask", |s| s.sampling_ask, |s, v| s.sampling_ask = v)}
            {super::sign_in::auth_line(page, index)}
            <label>
                "Time limit per call (seconds)"
                <input type="number" min="1" max="600" step="1" data-testid=id("timeout")
                    prop:value=move || settings.with(|s| s.tools.mcp.servers.get(index).map(|s| s.common.timeout_s).unwrap_or(30.0).to_string())
                    on:change=move |ev| {
                        if let Some(v) = crate::number::parse_f64(&event_target_value(&ev)) {
                            page.update_server(index, |s| s.common.timeout_s = v.clamp(1.0, 600.0));
                        }
                    }/>
            </label>
            <div class="connection-test">
                <span>
                    <button type="button" class="ghost" data-testid=id("connect") on:click=connect>"Connect"</button>
                    " "
                    <button type="button" class="ghost" data-testid=id("remove") on:click=remove>"Remove"</button>
                </span>
                <p role="status" data-testid=id("status")
                    class=move || match page.status_of(&url()) { Some((true, _)) => "ok", Some((false, _)) => "bad", None => "" }>
                    {move || page.status_of(&url()).map(|(ok, text)| format!("{} {text}", if ok { "✓" } else { "✗" }))}
                </p>
            </div>
            {move || {
                let instructions = settings.with(|s| s.tools.mcp.servers.get(index).map(|s| s.instructions.clone()).unwrap_or_default());
                (!instructions.trim().is_empty()).then(|| view! {
                    <details class="mcp-instructions" data-testid=id("instructions")>
                        <summary>"This server's instructions (added to the agent's system prompt, marked as the server's)"</summary>
                        <pre>{instructions}</pre>
                    </details>
                })
            }}
            <ToolList page index/>
            <Offers page index/>
        </div>
    }
}

/// The resources, resource templates and prompts the server listed on Connect: resources are
/// attached to a question from the composer, prompts become questions there.
#[component]
fn Offers(page: Page, index: usize) -> impl IntoView {
    let offers = move || {
        page.settings().with(|s| s.tools.mcp.servers.get(index).map(|s| {
            let offers = s.offers();
            (offers.resources, offers.templates, offers.prompts)
        }).unwrap_or_default())
    };
    let line = |item: &crate::ui::services::mcp::McpItem, detail: String| {
        let about = if item.description.is_empty() { String::new() } else { format!(": {}", item.description) };
        view! { <li><code>{item.name.clone()}</code>" "<span class="hint">{format!("{detail}{about}")}</span></li> }
    };
    move || {
        let (resources, templates, prompts) = offers();
        let listed = resources.len() + templates.len();
        view! {
            {(listed > 0).then(|| view! {
                <details class="mcp-offers" data-testid=format!("mcp-resources-{index}")>
                    <summary>{format!("Resources: {} (attach them to a question with 📎 beside the composer)", listed)}</summary>
                    <label>
                        "When the agent reads one itself (read_resource) "
                        <select class="small" data-testid=format!("mcp-resources-ask-{index}")
                            on:change=move |ev| page.update_server(index, |s| s.resources_ask = event_target_value(&ev) == "ask")>
                            <option value="ask" selected=move || page.settings().with(|s| s.tools.mcp.servers.get(index).is_some_and(|s| s.resources_ask))>"Ask each time"</option>
                            <option value="allow" selected=move || page.settings().with(|s| s.tools.mcp.servers.get(index).is_some_and(|s| !s.resources_ask))>"Always allow"</option>
                        </select>
                    </label>
                    <ul>
                        {resources.iter().map(|r| line(r, format!("{}{}", r.uri, if r.mime_type.is_empty() { String::new() } else { format!(" · {}", r.mime_type) }))).collect_view()}
                        {templates.iter().map(|t| line(t, format!("template {}", t.uri))).collect_view()}
                    </ul>
                </details>
            })}
            {(!prompts.is_empty()).then(|| view! {
                <details class="mcp-offers" data-testid=format!("mcp-prompts-{index}")>
                    <summary>{format!("Prompts: {} (pick one with ✦ beside the composer)", prompts.len())}</summary>
                    <ul>
                        {prompts.iter().map(|p| {
                            let arguments = p.arguments.iter().map(|a| if a.required { format!("{}*", a.name) } else { a.name.clone() }).collect::<Vec<_>>().join(", ");
                            line(p, if arguments.is_empty() { String::new() } else { format!("({arguments})") })
                        }).collect_view()}
                    </ul>
                </details>
            })}
        }
    }
}

/// A text field of server `index`, as plain `fn` pointers so one compiled copy serves all
/// (see `fields.rs`). The secret's field is a password field.
fn text_field(
    page: Page,
    index: usize,
    label: &'static str,
    what: &'static str,
    placeholder: &'static str,
    get: fn(&McpServer) -> String,
    set: fn(&mut McpServer, String),
) -> impl IntoView {
    let kind = match what {
        "secret" | "client-secret" => "password",
        "url" => "url",
        _ => "text",
    };
    view! {
        <label>
            {label}
            <input type=kind data-testid=format!("mcp-{what}-{index}") placeholder=placeholder spellcheck="false" autocomplete="off"
                prop:value=move || page.settings().with(|s| s.tools.mcp.servers.get(index).map(get).unwrap_or_default())
                on:change=move |ev| page.update_server(index, |s| set(s, event_target_value(&ev).trim().to_string()))/>
        </label>
    }
}

fn check_field(page: Page, index: usize, label: &'static str, what: &'static str, get: fn(&McpServer) -> bool, set: fn(&mut McpServer, bool)) -> impl IntoView {
    view! {
        <label class="check">
            <input type="checkbox" data-testid=format!("mcp-{what}-{index}")
                prop:checked=move || page.settings().with(|s| s.tools.mcp.servers.get(index).is_some_and(get))
                on:change=move |ev| page.update_server(index, |s| set(s, event_target_checked(&ev)))/>
            {label}
        </label>
    }
}

/// The server's tools with an on/off each, and the name the model sees when it differs.
#[component]
fn ToolList(page: Page, index: usize) -> impl IntoView {
    let settings = page.settings();
    let rows = move || {
        settings.with(|s| {
            let names = crate::ui::services::mcp::unique_names(&s.tools.mcp, &crate::ui::services::mcp::RESERVED_NAMES);
            let Some(server) = s.tools.mcp.servers.get(index) else { return Vec::new() };
            server
                .tools
                .iter()
                .enumerate()
                .map(|(t, tool)| {
                    let unique = names.get(index).and_then(|n| n.get(t)).cloned().flatten().filter(|n| *n != tool.name);
                    (t, tool.name.clone(), tool.description.clone(), tool.enabled, unique, tool.unavailable.clone(), tool.ask)
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <ul class="mcp-tools" data-testid=format!("mcp-tools-{index}")>
            {move || rows().into_iter().map(|(t, name, description, enabled, unique, unavailable, ask)| {
                let toggle = move |ev| page.update_server(index, |s| {
                    if let Some(tool) = s.tools.get_mut(t) {
                        tool.enabled = event_target_checked(&ev);
                    }
                });
                let approval = move |ev| page.update_server(index, |s| {
                    if let Some(tool) = s.tools.get_mut(t) {
                        tool.ask = event_target_value(&ev) == "ask";
                    }
                });
                // A tool the page cannot call is greyed, says why, and is never offered.
                let servable = unavailable.is_empty();
                let (select_id, select_label) = (format!("mcp-approval-{index}-{name}"), format!("Before each call of {name}"));
                view! {
                    <li data-testid="mcp-tool" class:unavailable=!servable>
                        <label class="check">
                            <input type="checkbox" data-testid=format!("mcp-tool-{index}-{name}") prop:checked=enabled && servable disabled=!servable on:change=toggle/>
                            <code>{name}</code>
                            {unique.map(|u| view! { <span class="hint">{format!(" (the model sees it as {u})")}</span> })}
                        </label>
                        <select class="small" data-testid=select_id aria-label=select_label
                            disabled=!(enabled && servable) on:change=approval>
                            <option value="ask" selected=ask>"Ask each time"</option>
                            <option value="allow" selected=!ask>"Always allow"</option>
                        </select>
                        {(!servable).then(|| view! { <p class="hint" data-testid="mcp-tool-unavailable">{format!("Not offered to the model: {unavailable}")}</p> })}
                        <p class="hint">{description}</p>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
