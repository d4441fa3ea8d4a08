//! Typed views over the syntax tree. Accessors return `Option`: a tree with errors may lack any
//! part the grammar says must exist.

use crate::kind::SyntaxKind::{self, *};
use crate::syntax_node::SyntaxNode;
use crate::syntax_node::SyntaxToken;

pub trait AstNode<'t>: Sized + Copy {
    fn can_cast(kind: SyntaxKind) -> bool;
    fn cast(node: SyntaxNode<'t>) -> Option<Self>;
    fn syntax(&self) -> SyntaxNode<'t>;
}

macro_rules! ast_node {
    ($($name:ident),* $(,)?) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name<'t>(SyntaxNode<'t>);
        impl<'t> AstNode<'t> for $name<'t> {
            fn can_cast(kind: SyntaxKind) -> bool { kind == SyntaxKind::$name }
            fn cast(node: SyntaxNode<'t>) -> Option<Self> {
                Self::can_cast(node.kind()).then_some($name(node))
            }
            fn syntax(&self) -> SyntaxNode<'t> { self.0 }
        }
    )*};
}

ast_node!(
    SourceFile,
    Import,
    ImportPath,
    ImportAlias,
    Decorator,
    FnDecl,
    ParamList,
    Param,
    RetType,
    TypeDecl,
    Variant,
    FieldDecl,
    Block,
    LetStmt,
    ExprStmt,
    AssignStmt,
    WhileStmt,
    LoopStmt,
    ReturnExpr,
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
    Lambda,
    ArrowFn,
);

fn child<'t, N: AstNode<'t>>(node: SyntaxNode<'t>) -> Option<N> {
    node.children().find_map(N::cast)
}

fn children<'t, N: AstNode<'t> + 't>(node: SyntaxNode<'t>) -> impl Iterator<Item = N> + 't {
    node.children().filter_map(N::cast)
}

/// Whether a node kind is an expression.
pub fn is_expr(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        SyntaxKind::Literal
            | SyntaxKind::NameRef
            | SyntaxKind::BinExpr
            | SyntaxKind::PrefixExpr
            | SyntaxKind::CallExpr
            | SyntaxKind::FieldExpr
            | SyntaxKind::IndexExpr
            | SyntaxKind::TryExpr
            | SyntaxKind::ParenExpr
            | SyntaxKind::TupleExpr
            | SyntaxKind::ListExpr
            | SyntaxKind::MapExpr
            | SyntaxKind::BlockExpr
            | SyntaxKind::IfExpr
            | SyntaxKind::MatchExpr
            | SyntaxKind::ForExpr
            | SyntaxKind::Lambda
            | SyntaxKind::ArrowFn
            | SyntaxKind::ReturnExpr
            | SyntaxKind::BreakExpr
            | SyntaxKind::ContinueExpr
            | SyntaxKind::Error
            | SyntaxKind::NotAScript
    )
}

/// Whether a node kind is a pattern.
pub fn is_pat(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        WildcardPat | IdentPat | LiteralPat | TuplePat | CtorPat
    )
}

fn exprs<'t>(node: SyntaxNode<'t>) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
    node.children().filter(|n| is_expr(n.kind()))
}

fn nth_expr(node: SyntaxNode<'_>, n: usize) -> Option<SyntaxNode<'_>> {
    exprs(node).nth(n)
}

/// The first significant token of one of the given kinds among the node's direct children.
fn token_of<'t>(node: SyntaxNode<'t>, kinds: &[SyntaxKind]) -> Option<SyntaxToken<'t>> {
    node.tokens().find(|t| kinds.contains(&t.kind()))
}

impl<'t> SourceFile<'t> {
    pub fn items(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        self.0.children()
    }
}

impl<'t> Decorator<'t> {
    /// The name without `@`.
    pub fn name(&self) -> String {
        token_of(self.0, &[AtName]).map_or(String::new(), |t| t.text()[1..].to_string())
    }
    pub fn args(&self) -> Option<SyntaxNode<'t>> {
        self.0.child_of(DecoratorArgs)
    }
}

impl<'t> Import<'t> {
    /// The path string token of a file import.
    pub fn path(&self) -> Option<SyntaxToken<'t>> {
        self.0
            .child_of(SyntaxKind::ImportPath)
            .and_then(|p| token_of(p, &[Str]))
    }
    /// The name after `as` in a file import (`as` itself is an identifier token of the node, so
    /// this is the identifier that follows it, never `as`).
    pub fn alias(&self) -> Option<SyntaxToken<'t>> {
        let node = self.0.child_of(SyntaxKind::ImportAlias)?;
        node.tokens().filter(|t| t.kind() == Ident).nth(1)
    }
}

impl<'t> FnDecl<'t> {
    pub fn name(&self) -> Option<SyntaxToken<'t>> {
        token_of(self.0, &[Ident, NonScriptKw])
    }
    pub fn is_pub(&self) -> bool {
        token_of(self.0, &[PubKw]).is_some()
    }
    pub fn decorators(&self) -> impl Iterator<Item = Decorator<'t>> + 't {
        children(self.0)
    }
    pub fn has_decorator(&self, name: &str) -> bool {
        self.decorators().any(|d| d.name() == name)
    }
    pub fn param_list(&self) -> Option<ParamList<'t>> {
        child(self.0)
    }
    pub fn ret_type(&self) -> Option<RetType<'t>> {
        child(self.0)
    }
    pub fn body(&self) -> Option<Block<'t>> {
        child(self.0)
    }
}

impl<'t> ParamList<'t> {
    pub fn params(&self) -> impl Iterator<Item = Param<'t>> + 't {
        children(self.0)
    }
}

impl<'t> Param<'t> {
    pub fn name(&self) -> Option<SyntaxToken<'t>> {
        token_of(self.0, &[Ident, NonScriptKw])
    }
    pub fn ty(&self) -> Option<SyntaxNode<'t>> {
        self.0.children().next()
    }
}

impl<'t> TypeDecl<'t> {
    pub fn name(&self) -> Option<SyntaxToken<'t>> {
        token_of(self.0, &[TypeIdent])
    }
    pub fn is_pub(&self) -> bool {
        token_of(self.0, &[PubKw]).is_some()
    }
    pub fn decorators(&self) -> impl Iterator<Item = Decorator<'t>> + 't {
        children(self.0)
    }
    pub fn json_as(&self) -> Option<Decorator<'t>> {
        self.decorators().find(|d| d.name() == "json_as")
    }
    /// The variants of an ADT (empty for records and aliases).
    pub fn variants(&self) -> impl Iterator<Item = Variant<'t>> + 't {
        self.0
            .child_of(AdtBody)
            .into_iter()
            .flat_map(children::<Variant>)
    }
    /// The fields of a record (empty for ADTs and aliases).
    pub fn record_fields(&self) -> impl Iterator<Item = FieldDecl<'t>> + 't {
        self.0
            .child_of(RecordBody)
            .into_iter()
            .flat_map(children::<FieldDecl>)
    }
    pub fn is_adt(&self) -> bool {
        self.0.child_of(AdtBody).is_some()
    }
    pub fn is_record(&self) -> bool {
        self.0.child_of(RecordBody).is_some()
    }
}

impl<'t> Variant<'t> {
    pub fn name(&self) -> Option<SyntaxToken<'t>> {
        token_of(self.0, &[TypeIdent])
    }
    pub fn fields(&self) -> impl Iterator<Item = FieldDecl<'t>> + 't {
        self.0
            .child_of(VariantFields)
            .into_iter()
            .flat_map(children::<FieldDecl>)
    }
}

impl<'t> FieldDecl<'t> {
    pub fn name(&self) -> Option<SyntaxToken<'t>> {
        token_of(self.0, &[Ident, NonScriptKw])
    }
    pub fn decorators(&self) -> impl Iterator<Item = Decorator<'t>> + 't {
        children(self.0)
    }
    pub fn ty(&self) -> Option<SyntaxNode<'t>> {
        self.0
            .children()
            .find(|n| matches!(n.kind(), NameType | FnType | TupleType))
    }
}

impl<'t> Block<'t> {
    /// Statements and expression statements in order.
    pub fn statements(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        self.0.children()
    }
}

impl<'t> LetStmt<'t> {
    pub fn pattern(&self) -> Option<SyntaxNode<'t>> {
        self.0.children().find(|n| is_pat(n.kind()))
    }
    pub fn value(&self) -> Option<SyntaxNode<'t>> {
        exprs(self.0).next()
    }
}

impl<'t> ExprStmt<'t> {
    pub fn expr(&self) -> Option<SyntaxNode<'t>> {
        exprs(self.0).next()
    }
}

impl<'t> AssignStmt<'t> {
    pub fn target(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn op(&self) -> Option<SyntaxToken<'t>> {
        token_of(self.0, &[Eq, PlusEq, MinusEq, StarEq, SlashEq])
    }
    pub fn value(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 1)
    }
}

impl<'t> WhileStmt<'t> {
    pub fn cond(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn body(&self) -> Option<Block<'t>> {
        child(self.0)
    }
}

impl<'t> LoopStmt<'t> {
    pub fn body(&self) -> Option<Block<'t>> {
        child(self.0)
    }
}

impl<'t> ReturnExpr<'t> {
    pub fn value(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
}

impl<'t> Literal<'t> {
    pub fn token(&self) -> Option<SyntaxToken<'t>> {
        self.0.tokens().next()
    }
}

impl<'t> NameRef<'t> {
    pub fn token(&self) -> Option<SyntaxToken<'t>> {
        self.0.tokens().next()
    }
}

impl<'t> BinExpr<'t> {
    pub fn lhs(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn rhs(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 1)
    }
    pub fn op(&self) -> Option<SyntaxToken<'t>> {
        self.0.tokens().find(|t| t.kind() != Newline)
    }
}

impl<'t> PrefixExpr<'t> {
    pub fn op(&self) -> Option<SyntaxToken<'t>> {
        self.0.tokens().next()
    }
    pub fn operand(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
}

impl<'t> CallExpr<'t> {
    pub fn callee(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn arg_list(&self) -> Option<ArgList<'t>> {
        child(self.0)
    }
}

/// One argument of a call.
#[derive(Clone, Copy, Debug)]
pub enum CallArg<'t> {
    Positional(SyntaxNode<'t>),
    Named(SyntaxToken<'t>, SyntaxNode<'t>),
}

impl<'t> ArgList<'t> {
    pub fn args(&self) -> impl Iterator<Item = CallArg<'t>> + 't {
        self.0.children().filter_map(|n| match n.kind() {
            SyntaxKind::Arg => exprs(n).next().map(CallArg::Positional),
            SyntaxKind::NamedArg => {
                let name = token_of(n, &[Ident])?;
                Some(CallArg::Named(name, exprs(n).next()?))
            }
            _ => None,
        })
    }
}

impl<'t> FieldExpr<'t> {
    pub fn receiver(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    /// The name after `.` (any word).
    pub fn name(&self) -> Option<SyntaxToken<'t>> {
        self.0
            .tokens()
            .filter(|t| t.kind() != Dot && t.kind() != Newline)
            .last()
    }
}

impl<'t> IndexExpr<'t> {
    pub fn receiver(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn index(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 1)
    }
}

impl<'t> TryExpr<'t> {
    pub fn inner(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
}

impl<'t> ParenExpr<'t> {
    pub fn inner(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
}

impl<'t> TupleExpr<'t> {
    pub fn elements(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        exprs(self.0)
    }
}

impl<'t> ListExpr<'t> {
    pub fn elements(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        exprs(self.0)
    }
}

impl<'t> MapExpr<'t> {
    pub fn entries(&self) -> impl Iterator<Item = MapEntry<'t>> + 't {
        children(self.0)
    }
}

impl<'t> MapEntry<'t> {
    /// The key token: a word or a string.
    pub fn key(&self) -> Option<SyntaxToken<'t>> {
        self.0.tokens().next()
    }
    pub fn value(&self) -> Option<SyntaxNode<'t>> {
        exprs(self.0).next()
    }
}

impl<'t> BlockExpr<'t> {
    pub fn block(&self) -> Option<Block<'t>> {
        child(self.0)
    }
}

impl<'t> IfExpr<'t> {
    pub fn cond(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn then_block(&self) -> Option<Block<'t>> {
        child(self.0)
    }
    pub fn else_branch(&self) -> Option<ElseBranch<'t>> {
        child(self.0)
    }
}

impl<'t> ElseBranch<'t> {
    pub fn else_if(&self) -> Option<IfExpr<'t>> {
        child(self.0)
    }
    pub fn block(&self) -> Option<Block<'t>> {
        child(self.0)
    }
}

impl<'t> MatchExpr<'t> {
    pub fn scrutinee(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn arms(&self) -> impl Iterator<Item = MatchArm<'t>> + 't {
        children(self.0)
    }
}

impl<'t> MatchArm<'t> {
    pub fn pattern(&self) -> Option<SyntaxNode<'t>> {
        self.0.children().find(|n| is_pat(n.kind()))
    }
    pub fn body(&self) -> Option<SyntaxNode<'t>> {
        exprs(self.0).next()
    }
}

impl<'t> ForExpr<'t> {
    /// The value binding and the optional index binding (`IdentPat` or `WildcardPat`).
    pub fn bindings(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        self.0
            .child_of(ForBinding)
            .into_iter()
            .flat_map(|b| b.children())
    }
    pub fn iterable(&self) -> Option<SyntaxNode<'t>> {
        nth_expr(self.0, 0)
    }
    pub fn body(&self) -> Option<Block<'t>> {
        child(self.0)
    }
}

impl<'t> Lambda<'t> {
    pub fn param_list(&self) -> Option<ParamList<'t>> {
        child(self.0)
    }
    pub fn body(&self) -> Option<SyntaxNode<'t>> {
        exprs(self.0).next()
    }
}

impl<'t> ArrowFn<'t> {
    /// Parameter name tokens.
    pub fn params(&self) -> impl Iterator<Item = SyntaxToken<'t>> + 't {
        self.0
            .child_of(ArrowParams)
            .into_iter()
            .flat_map(|p| p.children())
            .filter_map(|pat| pat.tokens().next())
    }
    pub fn body(&self) -> Option<SyntaxNode<'t>> {
        exprs(self.0).next()
    }
}

/// Sub-patterns of a tuple or constructor pattern.
pub fn sub_patterns<'t>(pat: SyntaxNode<'t>) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
    pat.children().filter(|n| is_pat(n.kind()))
}

/// The first significant token of a pattern (name, literal or constructor).
pub fn pattern_token<'t>(pat: SyntaxNode<'t>) -> Option<SyntaxToken<'t>> {
    pat.tokens().next()
}

/// Whether a constructor pattern has a parenthesised sub-pattern list (`Foo()` vs `Foo`).
pub fn ctor_has_parens(pat: SyntaxNode<'_>) -> bool {
    pat.tokens().any(|t| t.kind() == LParen)
}
