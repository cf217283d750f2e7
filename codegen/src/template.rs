//! Message and recovery-hint templates: text with `{name}` placeholders,
//! where `{{` and `}}` are literal braces.
//!
//! One parser for every reader of a template: the checker reports its
//! errors and the names it uses, the Rust emitter turns it into a
//! `format!`, the Markdown emitter renders the examples. They cannot
//! disagree on what a template means.

/// A piece of a template.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Segment<'t> {
    /// Literal text, escapes resolved (`{{` is `{`).
    Text(String),
    /// `{name}`.
    Placeholder {
        name: &'t str,
        /// Byte offset of the `{` in the template.
        offset: usize,
    },
}

/// A malformed brace. The segment it was found in keeps it as text, so a
/// template with errors still renders as written.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TemplateError {
    /// A `{` that is not closed, or a `}` that was never opened.
    Unbalanced { offset: usize, brace: char },
    /// `{}` or `{ x }`: not a valid placeholder name.
    BadName { offset: usize, text: String },
}

/// A parsed template.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Template<'t> {
    pub(crate) segments: Vec<Segment<'t>>,
    pub(crate) errors: Vec<TemplateError>,
}

impl<'t> Template<'t> {
    /// Parses `template`. A placeholder name is an identifier
    /// (`[A-Za-z0-9_]+`).
    pub(crate) fn parse(template: &'t str) -> Self {
        let bytes = template.as_bytes();
        let mut segments = Vec::new();
        let mut errors = Vec::new();
        let mut text = String::new();
        let mut i = 0;
        while i < bytes.len() {
            let next = template[i..]
                .find(['{', '}'])
                .map_or(bytes.len(), |rel| i + rel);
            text.push_str(&template[i..next]);
            i = next;
            if i >= bytes.len() {
                break;
            }
            let brace = bytes[i];
            if bytes.get(i + 1) == Some(&brace) {
                text.push(brace as char);
                i += 2;
                continue;
            }
            if brace == b'}' {
                errors.push(TemplateError::Unbalanced {
                    offset: i,
                    brace: '}',
                });
                text.push('}');
                i += 1;
                continue;
            }
            match template[i + 1..].find(['}', '{']) {
                Some(rel) if bytes[i + 1 + rel] == b'}' => {
                    let name = &template[i + 1..i + 1 + rel];
                    if !name.is_empty()
                        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    {
                        if !text.is_empty() {
                            segments.push(Segment::Text(std::mem::take(&mut text)));
                        }
                        segments.push(Segment::Placeholder { name, offset: i });
                    } else {
                        errors.push(TemplateError::BadName {
                            offset: i,
                            text: name.to_string(),
                        });
                        text.push_str(&template[i..i + rel + 2]);
                    }
                    i += rel + 2;
                }
                _ => {
                    errors.push(TemplateError::Unbalanced {
                        offset: i,
                        brace: '{',
                    });
                    text.push('{');
                    i += 1;
                }
            }
        }
        if !text.is_empty() {
            segments.push(Segment::Text(text));
        }
        Template { segments, errors }
    }

    /// The placeholders, in order, with the offset of their `{`.
    pub(crate) fn placeholders(&self) -> impl Iterator<Item = (&'t str, usize)> + '_ {
        self.segments.iter().filter_map(|s| match s {
            Segment::Placeholder { name, offset } => Some((*name, *offset)),
            Segment::Text(_) => None,
        })
    }

    /// The text with each placeholder replaced by `value(name)`, or left as
    /// written when that is `None`.
    pub(crate) fn render(&self, mut value: impl FnMut(&str) -> Option<String>) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Placeholder { name, .. } => match value(name) {
                    Some(v) => out.push_str(&v),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                },
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Segment<'_> {
        Segment::Text(s.into())
    }

    #[test]
    fn templates_split_into_text_and_placeholders() {
        let t = Template::parse("edit {edit_index}: {{literal}} in {file_path}");
        assert_eq!(
            t.segments,
            vec![
                text("edit "),
                Segment::Placeholder {
                    name: "edit_index",
                    offset: 5
                },
                text(": {literal} in "),
                Segment::Placeholder {
                    name: "file_path",
                    offset: 34
                },
            ]
        );
        assert!(t.errors.is_empty());
        assert_eq!(
            Template::parse("no placeholders").segments,
            vec![text("no placeholders")]
        );
        assert_eq!(
            Template::parse("{x}").segments,
            vec![Segment::Placeholder {
                name: "x",
                offset: 0
            }]
        );
    }

    #[test]
    fn malformed_braces_are_errors_and_stay_as_text() {
        let t = Template::parse("dangling { brace } and { x } and {}");
        assert_eq!(
            t.segments,
            vec![text("dangling { brace } and { x } and {}")]
        );
        assert_eq!(
            t.errors,
            vec![
                TemplateError::BadName {
                    offset: 9,
                    text: " brace ".into()
                },
                TemplateError::BadName {
                    offset: 23,
                    text: " x ".into()
                },
                TemplateError::BadName {
                    offset: 33,
                    text: "".into()
                },
            ]
        );
        let t = Template::parse("open {x and");
        assert_eq!(
            t.errors,
            vec![TemplateError::Unbalanced {
                offset: 5,
                brace: '{'
            }]
        );
        let t = Template::parse("a } b");
        assert_eq!(
            t.errors,
            vec![TemplateError::Unbalanced {
                offset: 2,
                brace: '}'
            }]
        );
        let t = Template::parse("a { {b} }");
        assert_eq!(
            t.errors,
            vec![
                TemplateError::Unbalanced {
                    offset: 2,
                    brace: '{'
                },
                TemplateError::Unbalanced {
                    offset: 8,
                    brace: '}'
                },
            ]
        );
        assert_eq!(t.placeholders().collect::<Vec<_>>(), [("b", 4)]);
    }

    #[test]
    fn rendering_fills_known_placeholders_and_keeps_the_rest() {
        let t = Template::parse("{{n}} is {n}, {m} stays");
        let out = t.render(|name| (name == "n").then(|| "3".to_string()));
        assert_eq!(out, "{n} is 3, {m} stays");
    }
}
