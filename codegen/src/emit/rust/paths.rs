//! How the generated code reaches what it reads and writes in an
//! `ErrorEnvelope` (or an `UnlistedCodeEnvelope`): the code, the object
//! holding the fields `in: top_level`, the context, the hints, the message.
//!
//! Each is a member path of the layout, and each step of it is a Rust field
//! that is a value or, where the layout says the member or object may be
//! absent, an `Option`. A path of values is written as a place
//! (`envelope.error.status`), as splice's own envelope always is; a path
//! with an `Option` on it is read through `Option::and_then` and written
//! through `if let Some(..) = &mut ..`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::envelope::Member;
use crate::layout::{Fallback, Form, Layout, Object, Presence, Slot};

use super::envelope::member_ident;
use super::tokens::{ident, upper_camel, variant_ident};

/// One step of a member path: the Rust field, and whether it is an
/// `Option` (the member may be absent from an envelope of the form).
#[derive(Clone)]
pub(super) struct Step {
    /// The Rust field.
    pub(super) field: Ident,
    /// An `Option`.
    pub(super) optional: bool,
}

/// The steps to `path` in `object` (the layout of the envelope whose
/// struct is walked): one per member, optional where its slot may be absent.
pub(super) fn steps(object: &Object<'_>, path: &[&Member]) -> Vec<Step> {
    let mut out = Vec::new();
    let mut object = object;
    for member in path {
        let Some(slot) = object
            .slots
            .iter()
            .find(|s| s.member().is_some_and(|m| std::ptr::eq(m, *member)))
        else {
            break;
        };
        out.push(Step {
            field: member_ident(member),
            optional: slot.presence() != Presence::Required,
        });
        if let Slot::Object { object: inner, .. } = slot {
            object = inner;
        }
    }
    out
}

/// What reaching a path gives: a place (`base.a.b`, every step a value)
/// or an expression of `Option<&T>` (some step is an `Option`; the last
/// step's `Option` included).
pub(super) enum Access {
    /// `base.a.b`.
    Place(TokenStream),
    /// An `Option<&T>`.
    Maybe(TokenStream),
}

impl Access {
    /// `Option<&F>` of the optional field `field` of the object reached.
    pub(super) fn field(&self, field: &Ident) -> TokenStream {
        match self {
            Access::Place(p) => quote!(#p.#field.as_ref()),
            Access::Maybe(m) => quote!(#m.and_then(|o| o.#field.as_ref())),
        }
    }

    /// Whether the optional field `field` of the object reached is set.
    pub(super) fn has(&self, field: &Ident) -> TokenStream {
        match self {
            Access::Place(p) => quote!(#p.#field.is_some()),
            Access::Maybe(m) => quote!(#m.is_some_and(|o| o.#field.is_some())),
        }
    }
}

/// Reads `steps` from `base`.
pub(super) fn read(base: &TokenStream, steps: &[Step]) -> Access {
    let Some(first) = steps.iter().position(|s| s.optional) else {
        let fields = steps.iter().map(|s| &s.field);
        return Access::Place(quote!(#base #(.#fields)*));
    };
    // The values up to the first `Option` are a place.
    let fields = steps[..=first].iter().map(|s| &s.field);
    let mut expr = quote!(#base #(.#fields)*.as_ref());
    for Step { field, optional } in &steps[first + 1..] {
        expr = if *optional {
            quote!(#expr.and_then(|o| o.#field.as_ref()))
        } else {
            quote!(#expr.map(|o| &o.#field))
        };
    }
    Access::Maybe(expr)
}

/// Statements that run `leaf` on the place of the object `steps` lead to
/// from `base`, when every optional object on the way is there. The
/// constructors write every object of the envelope, so a setter run on a
/// builder's envelope always finds them.
pub(super) fn write(
    base: &TokenStream,
    steps: &[Step],
    leaf: &dyn Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let mut place = base.clone();
    for (i, Step { field, optional }) in steps.iter().enumerate() {
        if *optional {
            let rest = write(&quote!(object), &steps[i + 1..], leaf);
            return quote! {
                if let ::core::option::Option::Some(object) = &mut #place.#field {
                    #rest
                }
            };
        }
        place = quote!(#place.#field);
    }
    leaf(place)
}

/// Where `ErrorEnvelope` keeps what the generated code reads and writes,
/// from the layout of any envelope (splice's: `.error_code`,
/// `.recovery_hints`, `.context` and the fields at the top).
pub(super) struct Paths {
    /// To the member holding the `ErrorCode`: the one carrying the code
    /// name, else the one carrying the number.
    code: Vec<Step>,
    /// The variant of the code an envelope without it has.
    absent: Option<Ident>,
    /// With a code per category: the path to the member carrying the
    /// category, and each listed category's variant with its code's.
    by_category: Option<ByCategory>,
    /// Under `code_names: per_category`: the path to the member carrying
    /// the category, which with the name tells the code.
    category: Option<Vec<Step>>,
    /// The discriminant's path, dotted, for messages.
    dotted: String,
    /// No member carries the code name: the number member holds the
    /// `ErrorCode`, on the wire as its number.
    pub(super) by_number: bool,
    /// To the object holding the fields declared `in: top_level`.
    pub(super) holder: Vec<Step>,
    /// To the object holding the member carrying the context, and that
    /// member's field (an `Option<ErrorContext>`).
    pub(super) context: Option<(Vec<Step>, Ident)>,
    /// To the member carrying the hints.
    pub(super) hints: Option<Vec<Step>>,
}

/// The path to the member carrying the category, and each listed
/// category's `Category` variant with its fallback's `ErrorCode` variant.
type ByCategory = (Vec<Step>, Vec<(Ident, Ident)>);

impl Paths {
    pub(super) fn of(layout: &Layout<'_>) -> Paths {
        let any = layout.envelope(Form::Any);
        let discriminant = layout.discriminant();
        Paths {
            code: steps(&any, &discriminant.path),
            absent: discriminant.absent.one().map(variant_ident),
            by_category: match &discriminant.absent {
                Fallback::ByCategory { category, codes } => Some((
                    steps(&any, category),
                    codes
                        .iter()
                        .map(|(k, c)| (ident(&upper_camel(k)), variant_ident(c)))
                        .collect(),
                )),
                _ => None,
            },
            category: discriminant
                .per_category()
                .then(|| steps(&any, &discriminant.category)),
            dotted: discriminant.dotted(),
            by_number: !discriminant.by_name,
            holder: steps(&any, layout.holder()),
            context: layout.path_to("context").and_then(|p| {
                let (member, parent) = p.split_last()?;
                Some((steps(&any, parent), member_ident(member)))
            }),
            hints: layout.path_to("hints").map(|p| steps(&any, &p)),
        }
    }

    /// With a code per category: `Option<ErrorCode>`, the code the
    /// category of the envelope `base` names for an envelope without one.
    fn fallback(&self, base: &TokenStream) -> Option<TokenStream> {
        let (category, arms) = self.by_category.as_ref()?;
        // `check` puts the category in every envelope, outside any
        // optional object: a place.
        let (category, some) = match read(base, category) {
            Access::Place(p) => (p, false),
            Access::Maybe(m) => (quote!(#m.copied()), true),
        };
        let arms = arms.iter().map(|(cat, code)| {
            let pattern = if some {
                quote!(::core::option::Option::Some(Category::#cat))
            } else {
                quote!(Category::#cat)
            };
            quote!(#pattern => ::core::option::Option::Some(ErrorCode::#code))
        });
        Some(quote! {
            {
                #[allow(unreachable_patterns)]
                let fallback = match #category {
                    #(#arms,)*
                    _ => ::core::option::Option::None,
                };
                fallback
            }
        })
    }

    /// With a code per category: a statement returning `Err` when the
    /// envelope `base` has no code and its category names none (the schema
    /// refuses it: no variant matches).
    pub(super) fn missing_code(&self, base: &TokenStream) -> TokenStream {
        let Some(fallback) = self.fallback(base) else {
            return TokenStream::new();
        };
        let Access::Maybe(m) = read(base, &self.code) else {
            return TokenStream::new();
        };
        let message = format!(
            "`{}` is absent, and the envelope's category names no code for an envelope without it",
            self.dotted.replace('{', "{{").replace('}', "}}")
        );
        quote! {
            if #m.is_none() && (#fallback).is_none() {
                return ::core::result::Result::Err(::std::string::String::from(#message));
            }
        }
    }

    /// Under `code_names: per_category`, statements that set the
    /// `ErrorCode` of the (mutable) envelope `base` to the code its
    /// category and name tell: deserializing the name alone gives the first
    /// code of that name. An envelope whose pair no code has keeps it, and
    /// the check of its category refuses it.
    pub(super) fn resolve_pair(&self, base: &TokenStream) -> TokenStream {
        let Some(category) = &self.category else {
            return TokenStream::new();
        };
        // `check` puts the category in every envelope, outside any
        // optional object: a place.
        let category = match read(base, category) {
            Access::Place(p) => p,
            Access::Maybe(m) => quote!(*#m.expect("the category is in every envelope")),
        };
        let named = match read(base, &self.code) {
            Access::Place(p) => quote!(::core::option::Option::Some(#p)),
            Access::Maybe(m) => quote!(#m.copied()),
        };
        let set = self.set_code(base, &quote!(code));
        quote! {
            let category: Category = #category;
            if let ::core::option::Option::Some(named) = #named {
                if let ::core::option::Option::Some(code) =
                    ErrorCode::from_category_and_name(category.as_str(), named.as_str())
                {
                    #set
                }
            }
        }
    }

    /// The `ErrorCode` of the envelope `base`: read at its member, or the
    /// `absent_means` code when a step of the way is absent.
    /// Statements that set the `ErrorCode` of the envelope at `base` to
    /// `value` (an optional discriminant becomes `Some`).
    pub(super) fn set_code(&self, base: &TokenStream, value: &TokenStream) -> TokenStream {
        let Some((last, parents)) = self.code.split_last() else {
            return TokenStream::new();
        };
        let field = &last.field;
        let assign = if last.optional {
            quote!(::core::option::Option::Some(#value))
        } else {
            quote!(#value)
        };
        write(base, parents, &|place| quote!(#place.#field = #assign;))
    }

    pub(super) fn code(&self, base: &TokenStream) -> TokenStream {
        if let (Access::Maybe(m), Some(fallback)) = (read(base, &self.code), self.fallback(base)) {
            // Deserializing refuses an envelope without the code in a
            // category without a fallback ([`Paths::missing_code`]), as the
            // schema does; only a hand-built one reaches the last arm.
            return quote!(#m.copied().or(#fallback).unwrap_or(ErrorCode::ALL[0]));
        }
        match (read(base, &self.code), &self.absent) {
            (Access::Place(p), _) => p,
            (Access::Maybe(m), Some(absent)) => {
                quote!(#m.copied().unwrap_or(ErrorCode::#absent))
            }
            // `check` refuses an optional discriminant without
            // `absent_means`; the path is then a place.
            (Access::Maybe(m), None) => quote!(#m.copied().unwrap_or(ErrorCode::ALL[0])),
        }
    }

    /// The object holding the context member, read from `base`, and the
    /// member's field.
    pub(super) fn context(&self, base: &TokenStream) -> Option<(Access, &Ident)> {
        let (parent, member) = self.context.as_ref()?;
        Some((read(base, parent), member))
    }

    /// `Option<&T>` of the context field `field` of `base`'s envelope.
    pub(super) fn context_field(&self, base: &TokenStream, field: &Ident) -> Option<TokenStream> {
        let (parent, member) = self.context(base)?;
        Some(match parent {
            Access::Place(p) => quote!(#p.#member.as_ref().and_then(|c| c.#field.as_ref())),
            Access::Maybe(m) => {
                quote!(#m.and_then(|o| o.#member.as_ref()).and_then(|c| c.#field.as_ref()))
            }
        })
    }

    /// Whether the context field `field` of `base`'s envelope is set.
    pub(super) fn has_context_field(&self, base: &TokenStream, field: &Ident) -> TokenStream {
        match self.context(base) {
            Some((Access::Place(p), member)) => {
                quote!(#p.#member.as_ref().is_some_and(|c| c.#field.is_some()))
            }
            Some((Access::Maybe(m), member)) => quote! {
                #m.and_then(|o| o.#member.as_ref()).is_some_and(|c| c.#field.is_some())
            },
            None => quote!(false),
        }
    }
}
