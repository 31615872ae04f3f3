"""The playground: rulelang in the browser (Pyodide), as a static site."""
