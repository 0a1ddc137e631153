// Command mvdecl moves top-level declarations of a Go package into another
// package, exports their names, and rewrites every reference to them, in
// the package and in its internal tests, by their types (go/types), so no
// call site is edited by hand. It cut sql/catalog and sql/rowexec out of
// package sql (issue 9), and is kept for the rest of that cut.
//
//	go run ./internal/tools/mvdecl -dir sql -to sql/x -pkg x \
//		-import github.com/epochdb/epochdb/sql/x -spec spec.txt [-dry]
//
// The spec has a line per name: "name" moves a top-level declaration (its
// methods move with it) and exports it, "name=New" names it New;
// "Type.member=New" renames a field or method (of a moved type, or of one
// that stays); "Type.method=func" keeps a method of a moved type behind
// as a function of package dir, its calls rewritten; "@Type=Iface" lets
// moved code use Type, which stays, under the name Iface, an interface
// the target declares; "!name" lets moved code go on naming name, which
// stays, for a hand to fix after. With -dry, or when moved code would
// still use something that stays, it lists those uses (PROBLEM lines) and
// changes nothing. The moved declarations land in files of the target named as
// the files they came from; run goimports on both packages after.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

type pkgInfo struct {
	ImportPath  string
	Export      string
	Dir         string
	GoFiles     []string
	TestGoFiles []string
}

type edit struct {
	off, end int
	text     string
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}

func exported(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func main() {
	dir := flag.String("dir", "", "")
	to := flag.String("to", "", "")
	pkgName := flag.String("pkg", "", "")
	imp := flag.String("import", "", "")
	specFile := flag.String("spec", "", "")
	dry := flag.Bool("dry", false, "")
	flag.Parse()

	cmd := exec.Command("go", "list", "-export", "-deps", "-test", "-json", ".")
	cmd.Dir = *dir
	out, err := cmd.Output()
	if err != nil {
		panic(err)
	}
	exports := map[string]string{}
	var self pkgInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			panic(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Dir == mustAbs(*dir) && len(p.GoFiles) > 0 && !strings.Contains(p.ImportPath, " ") && !strings.HasSuffix(p.ImportPath, ".test") && !strings.HasSuffix(p.ImportPath, "_test") {
			self = p
		}
	}
	fset := token.NewFileSet()
	var files []*ast.File
	src := map[string][]byte{}
	for _, f := range append(self.GoFiles, self.TestGoFiles...) {
		path := filepath.Join(self.Dir, f)
		b, _ := os.ReadFile(path)
		src[path] = b
		af, err := parser.ParseFile(fset, path, b, parser.ParseComments)
		if err != nil {
			panic(err)
		}
		files = append(files, af)
	}
	impt := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: impt}
	pkg, err := conf.Check(self.ImportPath, fset, files, info)
	if err != nil {
		panic(err)
	}

	// spec
	specB, _ := os.ReadFile(*specFile)
	moveTop := map[string]string{}   // top-level name -> new name
	toFunc := map[string]bool{}      // "Type.method" converted to a function that stays
	subst := map[string]string{}     // a type that stays, which moved code names by an interface of the target
	renameMem := map[string]string{} // "Type.member" -> new name
	stays := map[string]bool{}       // names moved code may still use, to be fixed by hand
	for _, line := range strings.Split(string(specB), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, newName, _ := strings.Cut(line, "=")
		if strings.HasPrefix(name, "!") {
			stays[name[1:]] = true
			continue
		}
		if strings.HasPrefix(name, "@") {
			subst[name[1:]] = newName
			continue
		}
		if strings.Contains(name, ".") && newName == "func" {
			toFunc[name] = true
			continue
		}
		if strings.Contains(name, ".") {
			_, mem, _ := strings.Cut(name, ".")
			if newName == "" {
				newName = exported(mem)
			}
			renameMem[name] = newName
			continue
		}
		if newName == "" {
			newName = exported(name)
		}
		moveTop[name] = newName
	}
	// objects
	topObj := map[types.Object]string{}
	for name, nn := range moveTop {
		o := pkg.Scope().Lookup(name)
		if o == nil {
			fmt.Fprintln(os.Stderr, "no such top-level:", name)
			os.Exit(1)
		}
		topObj[o] = nn
	}
	memObj := map[types.Object]string{}
	for name, nn := range renameMem {
		tn, mem, _ := strings.Cut(name, ".")
		o := pkg.Scope().Lookup(tn)
		if o == nil {
			fmt.Fprintln(os.Stderr, "no such type:", tn)
			os.Exit(1)
		}
		obj, _, _ := types.LookupFieldOrMethod(o.Type(), true, pkg, mem)
		if obj == nil {
			fmt.Fprintln(os.Stderr, "no such member:", name)
			os.Exit(1)
		}
		memObj[obj] = nn
	}
	substObj := map[types.Object]string{}
	for name, nn := range subst {
		substObj[pkg.Scope().Lookup(name)] = nn
	}
	funcObj := map[types.Object]bool{}
	for name := range toFunc {
		tn, mem, _ := strings.Cut(name, ".")
		o := pkg.Scope().Lookup(tn)
		obj, _, _ := types.LookupFieldOrMethod(o.Type(), true, pkg, mem)
		if obj == nil {
			fmt.Fprintln(os.Stderr, "no such method:", name)
			os.Exit(1)
		}
		funcObj[obj] = true
	}
	// which decls move: top-level decls whose object is in topObj; methods whose receiver type moves
	recvMoves := func(fd *ast.FuncDecl) bool {
		if fd.Recv == nil {
			return false
		}
		t := fd.Recv.List[0].Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		id, ok := t.(*ast.Ident)
		if !ok {
			return false
		}
		_, ok = topObj[pkg.Scope().Lookup(id.Name)]
		return ok
	}
	type movedDecl struct {
		file       string
		start, end int
	}
	var moved []movedDecl
	inMoved := func(p token.Pos) bool {
		pos := fset.Position(p)
		for _, m := range moved {
			if m.file == pos.Filename && pos.Offset >= m.start && pos.Offset < m.end {
				return true
			}
		}
		return false
	}
	for _, f := range files {
		fname := fset.Position(f.Pos()).Filename
		for _, d := range f.Decls {
			mv := false
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					_, mv = topObj[info.Defs[d.Name]]
				} else {
					mv = recvMoves(d) && !funcObj[info.Defs[d.Name]]
				}
			case *ast.GenDecl:
				n, m := 0, 0
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						n++
						if _, ok := topObj[info.Defs[s.Name]]; ok {
							m++
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							n++
							if _, ok := topObj[info.Defs[id]]; ok {
								m++
							}
						}
					}
				}
				if m > 0 && m != n {
					fmt.Fprintf(os.Stderr, "%s: a declaration group moves in part; split it\n", fset.Position(d.Pos()))
					os.Exit(1)
				}
				mv = m > 0 && d.Tok != token.IMPORT
			}
			if mv && strings.HasSuffix(fname, "_test.go") {
				mv = false
			}
			if mv {
				start := d.Pos()
				var doc *ast.CommentGroup
				switch d := d.(type) {
				case *ast.FuncDecl:
					doc = d.Doc
				case *ast.GenDecl:
					doc = d.Doc
				}
				if doc != nil {
					start = doc.Pos()
				}
				moved = append(moved, movedDecl{fname, fset.Position(start).Offset, fset.Position(d.End()).Offset})
			}
		}
	}
	// edits
	edits := map[string][]edit{}
	addEdit := func(p token.Pos, length int, text string) {
		pos := fset.Position(p)
		edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset, pos.Offset + length, text})
	}
	problems := map[string]bool{}
	type span struct {
		file       string
		start, end int
	}
	var replaced []span
	// converted methods: the header becomes a function's
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !funcObj[info.Defs[fd.Name]] {
				continue
			}
			r := fd.Recv.List[0]
			rname := "_"
			if len(r.Names) > 0 {
				rname = r.Names[0].Name
			}
			t := r.Type
			star := ""
			if st, ok := t.(*ast.StarExpr); ok {
				t, star = st.X, "*"
			}
			tn := t.(*ast.Ident).Name
			sep := ", "
			if len(fd.Type.Params.List) == 0 {
				sep = ""
			}
			head := "func " + fd.Name.Name + "(" + rname + " " + star + *pkgName + "." + topObj[pkg.Scope().Lookup(tn)] + sep
			addEdit(fd.Type.Func, fset.Position(fd.Type.Params.Opening).Offset+1-fset.Position(fd.Type.Func).Offset, head)
			pos := fset.Position(fd.Type.Func)
			replaced = append(replaced, span{pos.Filename, pos.Offset, fset.Position(fd.Type.Params.Opening).Offset + 1})
		}
	}
	// their calls: x.m(args) becomes m(x, args)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !funcObj[info.Uses[sel.Sel]] {
				return true
			}
			if inMoved(call.Pos()) {
				problems[fmt.Sprintf("%s calls %s, which stays", fset.Position(call.Pos()), sel.Sel.Name)] = true
			}
			addEdit(sel.X.Pos(), 0, sel.Sel.Name+"(")
			sep := ", "
			if len(call.Args) == 0 {
				sep = ""
			}
			addEdit(sel.X.End(), fset.Position(call.Lparen).Offset+1-fset.Position(sel.X.End()).Offset, sep)
			return true
		})
	}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg {
			continue
		}
		inside := inMoved(id.Pos())
		if nn, ok := topObj[obj]; ok {
			if inside {
				if nn != id.Name {
					addEdit(id.Pos(), len(id.Name), nn)
				}
			} else {
				addEdit(id.Pos(), len(id.Name), *pkgName+"."+nn)
			}
			continue
		}
		if nn, ok := memObj[obj]; ok {
			addEdit(id.Pos(), len(id.Name), nn)
			continue
		}
		if nn, ok := substObj[obj]; ok && inside {
			addEdit(id.Pos(), len(id.Name), nn)
			continue
		}
		// a moved decl referring to something that stays
		if inside && obj.Parent() == pkg.Scope() && !stays[obj.Name()] {
			problems[fmt.Sprintf("%s uses %s", fset.Position(id.Pos()), obj.Name())] = true
		}
		if inside {
			if f, ok := obj.(*types.Func); ok && f.Type().(*types.Signature).Recv() != nil {
				recv := f.Type().(*types.Signature).Recv().Type()
				if p, ok := recv.(*types.Pointer); ok {
					recv = p.Elem()
				}
				if n, ok := recv.(*types.Named); ok {
					if _, sub := substObj[n.Obj()]; sub {
						continue
					}
					if _, mv := topObj[n.Obj()]; !mv {
						problems[fmt.Sprintf("%s uses method %s.%s", fset.Position(id.Pos()), n.Obj().Name(), obj.Name())] = true
					}
				}
			}
		}
	}
	// definitions of moved top-level names and renamed members
	for id, obj := range info.Defs {
		if obj == nil {
			continue
		}
		if nn, ok := topObj[obj]; ok && nn != id.Name {
			addEdit(id.Pos(), len(id.Name), nn)
		}
		if nn, ok := memObj[obj]; ok && nn != id.Name {
			addEdit(id.Pos(), len(id.Name), nn)
		}
	}
	// struct literal keys? they're Uses of fields: covered by memObj via Uses.
	var ps []string
	for p := range problems {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	for _, p := range ps {
		fmt.Println("PROBLEM", p)
	}
	if *dry || len(ps) > 0 {
		fmt.Println(len(moved), "declarations would move")
		return
	}
	// apply edits, extract moved text
	movedText := map[string]*bytes.Buffer{}
	for path, b := range src {
		var es []edit
		for _, e := range edits[path] {
			inside := false
			for _, r := range replaced {
				if r.file == path && e.off >= r.start && e.end <= r.end && !(e.off == r.start && e.end == r.end) {
					inside = true
				}
			}
			if !inside {
				es = append(es, e)
			}
		}
		// from the end; at one offset, a replacement before an insertion
		sort.SliceStable(es, func(i, j int) bool {
			if es[i].off != es[j].off {
				return es[i].off > es[j].off
			}
			return es[i].end-es[i].off > es[j].end-es[j].off
		})
		var out []byte = append([]byte(nil), b...)
		seen := map[[2]int]bool{}
		for _, e := range es {
			if seen[[2]int{e.off, e.end}] && e.end > e.off {
				continue
			}
			seen[[2]int{e.off, e.end}] = true
			out = append(out[:e.off], append([]byte(e.text), out[e.end:]...)...)
		}
		// moved ranges: need positions after edits -> recompute by mapping offsets
		shift := func(off int) int {
			d := 0
			for _, e := range es {
				if e.end <= off {
					d += len(e.text) - (e.end - e.off)
				}
			}
			return off + d
		}
		var mine []movedDecl
		for _, m := range moved {
			if m.file == path {
				mine = append(mine, m)
			}
		}
		sort.Slice(mine, func(i, j int) bool { return mine[i].start > mine[j].start })
		var pieces []string
		for _, m := range mine {
			s, e := shift(m.start), shift(m.end)
			pieces = append([]string{string(out[s:e])}, pieces...)
			out = append(out[:s], out[e:]...)
		}
		if len(pieces) > 0 {
			base := filepath.Base(path)
			buf := movedText[base]
			if buf == nil {
				buf = &bytes.Buffer{}
				movedText[base] = buf
				// copy the import block of the source file
				f, _ := parser.ParseFile(token.NewFileSet(), path, b, parser.ImportsOnly)
				fmt.Fprintf(buf, "package %s\n\nimport (\n", *pkgName)
				for _, is := range f.Imports {
					if is.Name != nil {
						fmt.Fprintf(buf, "\t%s %s\n", is.Name.Name, is.Path.Value)
					} else {
						fmt.Fprintf(buf, "\t%s\n", is.Path.Value)
					}
				}
				fmt.Fprintf(buf, ")\n\n")
			}
			for _, p := range pieces {
				buf.WriteString(p)
				buf.WriteString("\n\n")
			}
		}
		if !bytes.Equal(out, b) || len(pieces) > 0 {
			// add import of the new package if referenced
			if bytes.Contains(out, []byte(*pkgName+".")) && !bytes.Contains(out, []byte(`"`+*imp+`"`)) {
				i := bytes.Index(out, []byte("import ("))
				if i >= 0 {
					j := i + len("import (")
					out = append(out[:j], append([]byte("\n\t\""+*imp+"\""), out[j:]...)...)
				} else {
					i = bytes.Index(out, []byte("\n"))
					out = append(out[:i+1], append([]byte("\nimport \""+*imp+"\"\n"), out[i+1:]...)...)
				}
			}
			os.WriteFile(path, out, 0o644)
		}
	}
	os.MkdirAll(*to, 0o755)
	for base, buf := range movedText {
		dst := filepath.Join(*to, base)
		if _, err := os.Stat(dst); err == nil {
			// append to existing: strip package/imports of buf
			old, _ := os.ReadFile(dst)
			s := buf.String()
			s = s[strings.Index(s, ")\n\n")+3:]
			os.WriteFile(dst, append(old, []byte("\n"+s)...), 0o644)
			continue
		}
		os.WriteFile(dst, buf.Bytes(), 0o644)
	}
	fmt.Println(len(moved), "declarations moved")
}
