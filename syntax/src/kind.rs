//! Kinds of tokens and nodes in the syntax tree.

/// Every token and node kind. Tokens come first; `is_trivia` tokens are skipped by the parser but
/// kept in the tree, so the tree prints back to the exact input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum SyntaxKind {
    // Trivia.
    Whitespace,
    Comment,
    /// `;`: dropped, with a warning (voxscript.md §2.2).
    Semicolon,
    /// A byte-order mark at the start of the file.
    Bom,
    /// Characters that start no token, and invalid UTF-8: reported and skipped.
    ErrorChar,

    // Significant tokens.
    Newline,
    Int,
    Float,
    Decimal,
    /// Any string form: `"…"`, `'…'`, `r"…"`, `r#"…"#`.
    Str,
    /// Lower-case identifier (also the contextual words `to`, `env`, `http`, `dec`).
    Ident,
    /// Capitalised identifier.
    TypeIdent,
    /// `@name`.
    AtName,

    FnKw,
    LetKw,
    MutKw,
    IfKw,
    ElseKw,
    WhileKw,
    LoopKw,
    BreakKw,
    ContinueKw,
    MatchKw,
    ForKw,
    InKw,
    ReturnKw,
    TypeKw,
    ImportKw,
    PubKw,
    AsyncKw,
    AndKw,
    OrKw,
    NotKw,
    IsKw,
    /// `isnt`, or `is not` as one token.
    IsntKw,
    TrueKw,
    FalseKw,
    /// A hard keyword of full Vox that scripts cannot use (`actor`, `spawn`, `view`, …).
    NonScriptKw,

    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Dot,
    /// `..`: not an operator (error `syntax.range`), kept as a token for recovery.
    DotDot,
    Eq,
    EqEq,
    BangEq,
    Lt,
    Gt,
    LtEq,
    GtEq,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    Pipe,
    PipeGt,
    FatArrow,
    /// `->`: a deprecated return or arm arrow.
    ThinArrow,
    Question,
    /// `!` not followed by `=`: parsed as `not` (error `syntax.bang`).
    Bang,
    /// `&&`: parsed as `and` (warning).
    AmpAmp,
    /// `||`: parsed as `or` (warning).
    PipePipe,
    Eof,

    // Nodes.
    SourceFile,
    /// Tokens skipped during error recovery.
    Error,
    /// A service-surface item skipped after its `syntax.not-a-script` diagnostic.
    NotAScript,
    Import,
    ImportPath,
    ImportSym,
    ImportAlias,
    ImportNames,
    ImportName,
    Decorator,
    DecoratorArgs,
    FnDecl,
    GenericParams,
    ParamList,
    Param,
    RetType,
    TypeDecl,
    RecordBody,
    FieldDecl,
    AdtBody,
    Variant,
    VariantFields,
    AliasBody,
    NameType,
    TypeArgs,
    FnType,
    TupleType,
    Block,
    LetStmt,
    ExprStmt,
    AssignStmt,
    WhileStmt,
    LoopStmt,
    ReturnExpr,
    BreakExpr,
    ContinueExpr,
    Literal,
    NameRef,
    BinExpr,
    PrefixExpr,
    CallExpr,
    ArgList,
    Arg,
    NamedArg,
    FieldExpr,
    IndexExpr,
    TryExpr,
    ParenExpr,
    TupleExpr,
    ListExpr,
    MapExpr,
    MapEntry,
    BlockExpr,
    IfExpr,
    ElseBranch,
    MatchExpr,
    MatchArm,
    ForExpr,
    ForBinding,
    Lambda,
    ArrowFn,
    ArrowParams,
    WildcardPat,
    IdentPat,
    LiteralPat,
    TuplePat,
    CtorPat,
}

impl SyntaxKind {
    pub fn is_trivia(self) -> bool {
        matches!(
            self,
            SyntaxKind::Whitespace
                | SyntaxKind::Comment
                | SyntaxKind::Semicolon
                | SyntaxKind::Bom
                | SyntaxKind::ErrorChar
        )
    }

    pub fn is_token(self) -> bool {
        (self as u8) <= (SyntaxKind::Eof as u8)
    }

    pub fn is_keyword(self) -> bool {
        (SyntaxKind::FnKw as u8..=SyntaxKind::NonScriptKw as u8).contains(&(self as u8))
    }

    /// How a token kind is named in messages such as ``Expected `}`, found newline``.
    pub fn describe(self) -> &'static str {
        use SyntaxKind::*;
        match self {
            Whitespace => "whitespace",
            Comment => "a comment",
            Semicolon => "`;`",
            Bom => "a byte-order mark",
            ErrorChar => "an invalid character",
            Newline => "newline",
            Int => "an integer",
            Float => "a float",
            Decimal => "a decimal",
            Str => "a string",
            Ident => "a name",
            TypeIdent => "a type name",
            AtName => "a decorator",
            FnKw => "`fn`",
            LetKw => "`let`",
            MutKw => "`mut`",
            IfKw => "`if`",
            ElseKw => "`else`",
            WhileKw => "`while`",
            LoopKw => "`loop`",
            BreakKw => "`break`",
            ContinueKw => "`continue`",
            MatchKw => "`match`",
            ForKw => "`for`",
            InKw => "`in`",
            ReturnKw => "`return`",
            TypeKw => "`type`",
            ImportKw => "`import`",
            PubKw => "`pub`",
            AsyncKw => "`async`",
            AndKw => "`and`",
            OrKw => "`or`",
            NotKw => "`not`",
            IsKw => "`is`",
            IsntKw => "`isnt`",
            TrueKw => "`true`",
            FalseKw => "`false`",
            NonScriptKw => "a reserved word",
            LParen => "`(`",
            RParen => "`)`",
            LBracket => "`[`",
            RBracket => "`]`",
            LBrace => "`{`",
            RBrace => "`}`",
            Comma => "`,`",
            Colon => "`:`",
            Dot => "`.`",
            DotDot => "`..`",
            Eq => "`=`",
            EqEq => "`==`",
            BangEq => "`!=`",
            Lt => "`<`",
            Gt => "`>`",
            LtEq => "`<=`",
            GtEq => "`>=`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            Slash => "`/`",
            Percent => "`%`",
            PlusEq => "`+=`",
            MinusEq => "`-=`",
            StarEq => "`*=`",
            SlashEq => "`/=`",
            Pipe => "`|`",
            PipeGt => "`|>`",
            FatArrow => "`=>`",
            ThinArrow => "`->`",
            Question => "`?`",
            Bang => "`!`",
            AmpAmp => "`&&`",
            PipePipe => "`||`",
            Eof => "end of file",
            _ => "a syntax node",
        }
    }
}

/// Core hard keywords (voxscript.md §2.3). `to` is contextual (decisions.md 1) and lexes as a name.
pub(crate) fn keyword(word: &[u8]) -> Option<SyntaxKind> {
    use SyntaxKind::*;
    Some(match word {
        b"fn" => FnKw,
        b"let" => LetKw,
        b"mut" => MutKw,
        b"if" => IfKw,
        b"else" => ElseKw,
        b"while" => WhileKw,
        b"loop" => LoopKw,
        b"break" => BreakKw,
        b"continue" => ContinueKw,
        b"match" => MatchKw,
        b"for" => ForKw,
        b"in" => InKw,
        b"return" => ReturnKw,
        b"type" => TypeKw,
        b"import" => ImportKw,
        b"pub" => PubKw,
        b"async" => AsyncKw,
        b"and" => AndKw,
        b"or" => OrKw,
        b"not" => NotKw,
        b"is" => IsKw,
        b"isnt" => IsntKw,
        b"true" => TrueKw,
        b"false" => FalseKw,
        // `env` and `http` are listed as non-script keywords but are plain names except in the
        // top-level tombstone rule (decisions.md 1), so they lex as identifiers.
        b"extern" | b"actor" | b"workflow" | b"activity" | b"side_effect" | b"spawn" | b"with"
        | b"on" | b"state" | b"derived" | b"effect" | b"mount" | b"cleanup" | b"view"
        | b"component" | b"agent" | b"migrate" | b"when" | b"fetching" | b"empty" | b"fragment" => {
            NonScriptKw
        }
        _ => return None,
    })
}

/// Soft keywords that start a service declaration at the top level (voxscript.md §1.2).
pub(crate) const SOFT_KEYWORDS: &[&str] = &[
    "table",
    "index",
    "query",
    "mutation",
    "server",
    "tool",
    "resource",
    "routes",
    "url",
    "state_machine",
    "partial",
    "form",
];

/// Decorators of full Vox's service surfaces (voxscript.md §1.2).
pub(crate) const SERVICE_DECORATORS: &[&str] = &[
    "page",
    "component",
    "table",
    "query",
    "mutation",
    "server",
    "tool",
    "resource",
    "workflow",
    "remote",
    "scheduled",
    "reactive",
    "loading",
];

/// Decorators that mean something here or are accepted and ignored (voxscript.md §2.4).
pub(crate) const KNOWN_DECORATORS: &[&str] = &[
    "test",
    "example",
    "json_as",
    "field_name",
    "default",
    "skip_if_none",
    "pure",
    "versioned",
    "tracked",
    "deprecated",
    "uses",
    "require",
    "ensure",
    "invariant",
    "fuzz",
    "traced",
    "place",
    "layer",
    "forall",
    "native",
    "ai",
    "prompt",
    "subagent",
    "search",
    "hole",
    "cancellable",
];
